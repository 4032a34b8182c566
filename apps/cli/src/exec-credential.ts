/**
 * `kubernetes cluster kubeconfig exec-credential --version=v1beta1 CLUSTER_ID`, as doctl's: what
 * kubectl runs for a cluster saved by `kubeconfig save` (an `exec` credential plugin). It gets the
 * cluster's credentials (kubernetes-cluster-get-credentials, a fresh token each time) and prints
 * them as the ExecCredential kubectl reads on stdout, and nothing else there. The token goes
 * nowhere but that answer: no file keeps it (doctl caches it on disk; each run here asks again).
 */
import { InputError } from '@cloudcall/core';
import { Command, Option } from 'commander';

/** The command's name; doctl's words `kubernetes cluster kubeconfig exec-credential` reach it. */
export const EXEC_CREDENTIAL_COMMAND = 'kubernetes-cluster-kubeconfig-exec-credential';

/** The API version of the ExecCredential a saved kubeconfig asks for (doctl's). */
export const EXEC_API_VERSION = 'client.authentication.k8s.io/v1beta1';

/** The ExecCredential versions kubectl may ask for, by `--version`. */
const VERSIONS = ['v1beta1', 'v1'];

/** The `exec-credential` command: its flags, and the run it hands the cluster and version to. */
export function execCredentialCommand(
  io: { stdout: (text: string) => void; stderr: (text: string) => void },
  connection: readonly Option[],
  run: (cluster: string, version: string, local: Record<string, unknown>) => Promise<void>,
): Command {
  const command = new Command(EXEC_CREDENTIAL_COMMAND)
    .summary("Print a cluster's token for kubectl")
    .description(
      "What kubectl runs for a cluster saved by `kubernetes cluster kubeconfig save`: prints an ExecCredential (client.authentication.k8s.io) holding a fresh token for the cluster's API server, from kubernetes-cluster-get-credentials. Nothing but the credential is printed on stdout, and no file keeps the token.",
    )
    .argument('<cluster-id>', 'the cluster, from kubernetes-cluster-list')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .addOption(
      new Option('--version <version>', 'the ExecCredential version kubectl asks for')
        .choices(VERSIONS)
        .default('v1beta1'),
    );
  for (const option of connection) command.addOption(option.helpGroup('Global options:'));
  command.action(async (cluster: string, flags: Record<string, unknown>) => {
    const { version, ...local } = flags;
    await run(cluster, String(version), local);
  });
  return command;
}

interface Credentials {
  token?: unknown;
  expires_at?: unknown;
  client_certificate_data?: unknown;
  client_key_data?: unknown;
}

/**
 * The ExecCredential for kubernetes-cluster-get-credentials' answer, as one JSON line: the token
 * and when it expires, or (for a cluster older than token authentication) the client certificate
 * and key, PEM, as the answer holds them in base64.
 */
export function execCredential(answer: unknown, version: string): string {
  const credentials = (answer ?? {}) as Credentials;
  const status: Record<string, unknown> = {};
  if (typeof credentials.token === 'string' && credentials.token !== '') status.token = credentials.token;
  else if (
    typeof credentials.client_certificate_data === 'string' &&
    typeof credentials.client_key_data === 'string'
  ) {
    status.clientCertificateData = Buffer.from(credentials.client_certificate_data, 'base64').toString();
    status.clientKeyData = Buffer.from(credentials.client_key_data, 'base64').toString();
  } else throw new InputError('the platform answered no token and no client certificate for the cluster');
  if (typeof credentials.expires_at === 'string') status.expirationTimestamp = credentials.expires_at;
  const apiVersion = EXEC_API_VERSION.replace(/v1beta1$/, version);
  return `${JSON.stringify({ apiVersion, kind: 'ExecCredential', spec: { interactive: false }, status })}\n`;
}
