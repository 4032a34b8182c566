/**
 * What a tool command's own options do (plumbing-options.ts declares them): `--all` follows
 * `links.pages.next` (runAllPages; `cloudcall api --paginate` too), `--wait` and `--timeout`
 * wait for what the answer yields (`tool.wait`, waited for by the `wait` tool's own logic,
 * `waitAfter`).
 */

import {
  type AnyTool,
  CancelledError,
  InputError,
  runTool,
  type ToolContext,
  type ToolProgress,
  WaitTimeoutError,
} from '@cloudcall/core';
import { durationMs, followPages, runAllPages, showControls } from '@cloudcall/core/internal';
import { DEFAULT_WAIT_SECONDS, waitAfter, waitSecondsFor, waitTargets } from '@cloudcall/wait';
import { DEFAULT_TIMEOUT, type PlumbingOptions } from './plumbing-options.js';

export interface PlumbingIo {
  stderr: (text: string) => void;
  /** Whether stderr is a terminal: a live progress line there, one line per status change otherwise. */
  stderrIsTty?: boolean | undefined;
}

/** A duration such as `90`, `90s`, `5m`, `1h` or `1500ms`, in seconds. */
export function parseDuration(text: string): number {
  const ms = durationMs(text) ?? Number.NaN;
  if (!(ms > 0)) {
    throw new InputError(
      `expected a duration such as 90s, 5m or 1h, got ${JSON.stringify(text)}`,
      '--timeout',
    );
  }
  return ms / 1000;
}

/**
 * The outcome of a tool command: its result to print, an exit code when it already said why, or
 * both (a `--wait` that timed out prints the resource as last seen, then exits 5).
 */
export type Outcome = { result: unknown; code?: number } | { code: number };

/**
 * Runs a tool as its command's options say: every page with `--all`; with `--wait`, then waits
 * for what the answer yields. Ctrl-C while waiting stops the wait, not the platform's work, and
 * says so (exit 130); a timeout says the last status on stderr and hands back the resource as last
 * seen, to print before exiting 5.
 */
export async function runPlumbed(
  tool: AnyTool,
  args: Record<string, unknown>,
  options: PlumbingOptions,
  context: ToolContext,
  io: PlumbingIo,
  /** Runs the tool once (the guard's confirmation and audit around it, in the CLI). */
  run: (tool: AnyTool, args: Record<string, unknown>, context: ToolContext) => Promise<Outcome> = async (
    ...call
  ) => ({ result: await runTool(...call) }),
  /** What the tool works on as the command named it (`volume logs`), for the progress line. */
  about?: string,
): Promise<Outcome> {
  if (options.timeout !== undefined && !options.wait) {
    throw new InputError('goes with --wait', '--timeout');
  }
  // Not told, as long as the kind usually takes, twice over (a Kubernetes cluster: 14 minutes).
  const timeoutSeconds =
    options.timeout !== undefined
      ? parseDuration(options.timeout)
      : tool.wait
        ? waitSecondsFor(tool.wait.kind)
        : parseDuration(DEFAULT_TIMEOUT);
  // A pause for the rate limit can last minutes: said on stderr, terminal or not.
  const paging = {
    ...context,
    progress: (update: ToolProgress) => io.stderr(`cloudcall: ${showControls(update.message)}\n`),
  };
  if (tool.name === 'wait' && io.stderrIsTty) return waitCommand(tool, args, context, io, run);
  const first = options.all ? { result: await allPages(tool, args, paging) } : await run(tool, args, context);
  if (!('result' in first)) return first;
  const { result } = first;
  if (!options.wait || !tool.wait) return { result };
  const targets = waitTargets(tool.wait, args, result);
  const display = progressDisplay(io, timeoutSeconds);
  try {
    const ready = await waitAfter(
      tool.wait,
      args,
      result,
      { ...context, progress: display.update },
      timeoutSeconds,
      about,
    );
    display.done();
    return { result: ready };
  } catch (error) {
    const again = showControls(
      targets
        .map(
          ({ ID, Name }) =>
            `cloudcall wait --kind ${tool.wait?.kind} --id ${ID}${Name ? ` --name ${Name}` : ''}`,
        )
        .join('; '),
    );
    if (error instanceof WaitTimeoutError) {
      // The wait's message tells an agent how to call the wait tool again; a person gets the command.
      display.stop();
      const head = error.message.replace(/ Nothing failed: .*$/s, '');
      io.stderr(
        `cloudcall: ${head} Nothing failed: the platform goes on with what ${tool.name} started; to keep waiting: ${again}\n`,
      );
      // The resource as last seen goes to stdout all the same, so a script has its id. With several
      // (a tool that starts many actions), the tool's own answer names them all.
      const lastSeen = targets.length === 1 && error.lastObserved !== undefined ? error.lastObserved : result;
      return { result: lastSeen, code: 5 };
    }
    if (!(error instanceof CancelledError)) throw error;
    display.stop();
    io.stderr(
      `cloudcall: stopped waiting (interrupted). The platform goes on with what ${tool.name} started; to wait again: ${again}\n`,
    );
    return { code: 130 };
  } finally {
    display.stop();
  }
}

/**
 * `cloudcall wait` on a terminal: the same progress line as `--wait`, in place of a line per poll.
 * Its errors (a timeout, a failed state) are the caller's to print, once the line is cleared.
 */
async function waitCommand(
  tool: AnyTool,
  args: Record<string, unknown>,
  context: ToolContext,
  io: PlumbingIo,
  run: (tool: AnyTool, args: Record<string, unknown>, context: ToolContext) => Promise<Outcome>,
): Promise<Outcome> {
  const timeout = Number(args.TimeoutSeconds ?? DEFAULT_WAIT_SECONDS);
  const display = progressDisplay(io, Number.isFinite(timeout) ? timeout : DEFAULT_WAIT_SECONDS);
  try {
    const outcome = await run(tool, args, { ...context, progress: display.update });
    if ('result' in outcome) display.done();
    return outcome;
  } finally {
    display.stop();
  }
}

/**
 * Every page of a list, merged: a list tool's, by its page argument; a generic tool's (api-call
 * sending a GET of a list: `cloudcall api --paginate`), by the `page` of its Query.
 */
function allPages(tool: AnyTool, args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
  if (!tool.generic) return runAllPages(tool, args, context);
  const query = (args.Query ?? {}) as Record<string, unknown>;
  return followPages(
    (page) => runTool(tool, { ...args, Query: { ...query, page } }, context),
    Number(query.page ?? 1),
    context,
  );
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Progress of a wait, naming what it waits for by kind and name (`vm web-1`, `action power_off on
 * vm web-1`). On a terminal: one line, rewritten in place, with a spinner and the elapsed time
 * ticking between polls. Elsewhere (a log, CI): one line per status change. A handful of
 * lines of our own rather than a spinner package: the line needs the wait's own status and
 * elapsed time, and must write through the CLI's stderr, which a test can replace.
 */
function progressDisplay(io: PlumbingIo, timeoutSeconds: number) {
  const started = Date.now();
  let last: ToolProgress | undefined;
  let shownStatus: string | undefined;
  let frame = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const seconds = () => Math.round((Date.now() - started) / 1000);
  // A name comes from the command line or the platform: a line break, an ANSI escape or a bidi
  // control in it would break the line in place or rewrite the terminal, so each is shown escaped.
  const shown = (update: ToolProgress) => showControls(`${update.subject ?? ''}: ${update.status ?? ''}`);
  const line = () => {
    if (!last) return;
    const elapsed = seconds();
    io.stderr(
      `\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${shown(last)} (${elapsed} s, timeout ${timeoutSeconds} s)`,
    );
  };
  return {
    update(update: ToolProgress) {
      last = update;
      if (io.stderrIsTty) {
        timer ??= setInterval(line, 100);
        line();
      } else if (shown(update) !== shownStatus) {
        shownStatus = shown(update);
        io.stderr(`cloudcall: ${shownStatus} (${seconds()} s)\n`);
      }
    },
    stop() {
      if (timer) {
        clearInterval(timer);
        timer = undefined;
        io.stderr('\r\x1b[K');
      }
    },
    /** The last line: where the wait ended (the wait's last report is the ready status). */
    done() {
      this.stop();
      if (!last) return;
      const status = shown(last);
      // Off a terminal, a status already has its line.
      if (io.stderrIsTty || status !== shownStatus) io.stderr(`cloudcall: ${status} (${seconds()} s)\n`);
    },
  };
}
