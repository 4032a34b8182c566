/**
 * What a tool command adds to a tool's own flags, from its index entry: `--all` on list tools,
 * `--wait` and `--timeout` on tools whose answer can be waited for. What they do is plumbing.ts's.
 */
import { Option } from 'commander';
import type { ToolEntry } from './tool-entry.js';
import { WAIT_READY } from './tool-index.generated.js';

export interface PlumbingOptions {
  all?: boolean;
  wait?: boolean;
  timeout?: string;
  /** A kubeconfig merged into the user's kubeconfig file instead of printed (kubeconfig.ts). */
  save?: boolean;
}

/** How long `--wait` waits unless `--timeout` says otherwise. */
export const DEFAULT_TIMEOUT = '5m';

/** The options a tool's command gets besides its arguments. */
export function plumbingOptions(tool: Pick<ToolEntry, 'name' | 'page' | 'wait'>): Option[] {
  const options: Option[] = [];
  if (tool.page !== undefined) {
    options.push(new Option('--all', 'fetch every page (following links.pages.next) and merge them'));
  }
  if (tool.wait) {
    const ready = WAIT_READY[tool.wait.kind];
    options.push(
      new Option('--wait', `wait until the ${tool.wait.kind} is ${ready.ready}, showing its ${ready.field}`),
      new Option(
        '--timeout <duration>',
        `how long --wait waits, such as 90s, 5m or 1h (default ${DEFAULT_TIMEOUT}, or twice what the thing usually takes: 10m for a database, 14m for a Kubernetes cluster); past it, the resource as last seen is printed and the exit code is 5`,
      ),
    );
  }
  if (tool.name === KUBECONFIG_TOOL) {
    options.push(
      new Option(
        '--save',
        "merge it into the kubeconfig file ($KUBECONFIG's first, else ~/.kube/config) and make it the current context, printing no token (doctl's kubeconfig save)",
      ),
    );
  }
  return options;
}

/** The tool whose answer `--save` writes into the kubeconfig file. */
export const KUBECONFIG_TOOL = 'kubernetes-cluster-get-kubeconfig';
