/**
 * What a tool command adds to a tool's own flags, from its index entry: `--all` on list tools,
 * `--wait` and `--timeout` on tools whose answer can be waited for. What they do is plumbing.ts's.
 */
import { InputError } from '@cloudcall/core';
import { Option } from 'commander';
import type { ToolEntry } from './tool-entry.js';
import { WAIT_READY } from './tool-index.generated.js';

export interface PlumbingOptions {
  all?: boolean;
  wait?: boolean;
  timeout?: string;
  /** A kubeconfig merged into the user's kubeconfig file instead of printed (kubeconfig.ts). */
  save?: boolean;
  /** An app's logs: their text, read from the URLs the answer gives, instead of the URLs (app-logs.ts). */
  text?: boolean;
  /** With --save or a cluster's create: make its context the current one (`true` or text). */
  setCurrentContext?: boolean | string;
  /** A cluster's create: save its kubeconfig once it is made (`true` or text). */
  updateKubeconfig?: boolean | string;
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
  const setCurrent = new Option(
    '--set-current-context [true|false]',
    "make the cluster's context kubectl's current one (default true, as doctl)",
  );
  if (tool.name === KUBECONFIG_TOOL) {
    options.push(
      new Option(
        '--save',
        "merge it into the kubeconfig file ($KUBECONFIG's first, else ~/.kube/config), printing no token (doctl's kubeconfig save): kubectl runs `cloudcall kubernetes cluster kubeconfig exec-credential` for a fresh token, unless --expiry-seconds asks for a token that expires",
      ),
      setCurrent,
    );
  }
  if (tool.name === LOGS_TOOL) {
    options.push(
      new Option(
        '--text',
        "print the logs' text as it comes, read from the URLs the answer gives (doctl's apps logs), instead of the URLs",
      ),
    );
  }
  if (tool.name === CLUSTER_CREATE_TOOL) {
    options.push(
      new Option(
        '--update-kubeconfig [true|false]',
        'save the new cluster into the kubeconfig file, as kubeconfig save does (default true, as doctl; with --sandbox, false unless given)',
      ),
      setCurrent,
    );
  }
  return options;
}

/** The tool whose URLs `--text` reads. */
export const LOGS_TOOL = 'app-get-logs';

/** The tool whose new cluster `--update-kubeconfig` saves. */
export const CLUSTER_CREATE_TOOL = 'kubernetes-cluster-create';

/**
 * A yes-or-no option's value: unset is `fallback`, bare or `true` is true, `false` is false;
 * anything else is refused, naming the flag.
 */
export function yesOrNo(value: boolean | string | undefined, flag: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new InputError(`expected true or false, got ${JSON.stringify(value)}`, flag);
}

/** The tool whose answer `--save` writes into the kubeconfig file. */
export const KUBECONFIG_TOOL = 'kubernetes-cluster-get-kubeconfig';
