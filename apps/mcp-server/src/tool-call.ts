/**
 * tools/call for the offered tools: the one tool runner of a process, shared by every SDK server
 * (server.ts) and by the fast paths that answer a plain call without one (fast-call.ts over
 * stdio, http.ts with --stateless). Nothing here loads the MCP SDK: a stateless replica that only
 * answers plain calls never loads its server, transport or protocol schemas. A tool's family loads
 * with the first call to one of its tools (`@cloudcall/catalog/lazy`), not every family at once.
 */
import { closest } from '@cloudcall/catalog/select';
import type { AnyTool, FamilyName, ToolContext, ToolProgress, WaitKind } from '@cloudcall/core';
import type { ErrorReport } from '@cloudcall/core/internal';
import type {
  AuthInfo,
  CallToolRequestParams,
  CallToolResult,
  ProtocolError,
  RequestId,
  ServerNotification,
} from '@modelcontextprotocol/server';
import { boundedWait, CallerCounts, ShareRefusal, waitShareRefusal } from './fair-share.js';
import { type AskingServer, guardReport, type PendingQuestion, runGuarded } from './guard.js';
import { argumentsDigest } from './request-state.js';
import type { McpServerOptions } from './server.js';
import type { ToolData } from './tool-data.js';

/** A 401's hint when the token came with the request: the caller fixes it, not the server. */
const REQUEST_TOKEN_HINT =
  "The API token this request carried (Authorization: Bearer) is expired, revoked or not a token: create one in the control panel (API > Tokens) and send it in your MCP client's Authorization header.";

/**
 * What running any tool needs beyond the build-time listing: core's runner, the guard and the
 * waits. Loaded once, on the first call (or just after tools/list, `warmUp`), so that the
 * server answers initialize and tools/list without loading any of it. The tools' definitions load
 * by family (`definitions`).
 */
interface CallKit {
  core: typeof import('@cloudcall/core');
  guard: typeof import('@cloudcall/guard');
  pendingWaits: typeof import('@cloudcall/wait').pendingWaits;
  /** A task's wait (tasks/): what a tool's answer yields, waited for until ready. */
  waitTargets: typeof import('@cloudcall/wait').waitTargets;
  waitForTargets: typeof import('@cloudcall/wait').waitForTargets;
  waitSecondsFor: typeof import('@cloudcall/wait').waitSecondsFor;
  /** The `wait` tool's name and its TimeoutSeconds when a call gives none. */
  wait: { name: string; defaultSeconds: number };
}

let callKit: Promise<CallKit> | undefined;
/** The call kit once loaded: a call then takes it as it is, without waiting a turn for it. */
let loadedKit: CallKit | undefined;
export function loadCallKit(): Promise<CallKit> {
  callKit ??= Promise.all([import('@cloudcall/core'), import('@cloudcall/guard'), import('@cloudcall/wait')])
    .then(([core, guard, waiting]) => ({
      core,
      guard,
      pendingWaits: waiting.pendingWaits,
      waitTargets: waiting.waitTargets,
      waitForTargets: waiting.waitForTargets,
      waitSecondsFor: waiting.waitSecondsFor,
      wait: { name: waiting.waitTool.name, defaultSeconds: waiting.DEFAULT_WAIT_SECONDS },
    }))
    .then((kit) => {
      loadedKit = kit;
      return kit;
    });
  return callKit;
}

/** The catalog's error reports, loaded with the first call that fails. */
let reports: Promise<typeof import('@cloudcall/catalog/hints').reportError> | undefined;
function loadReportError() {
  reports ??= import('@cloudcall/catalog/hints').then((hints) => hints.reportError);
  return reports;
}

/**
 * Every tool's definition by name, a family at a time: the family's own tools, and the guard's
 * tools (`plan`, `audit-list`), which the listing files under a family but the guard defines.
 */
const definitions = new Map<string, AnyTool>();
const familiesLoaded = new Map<FamilyName, Promise<void>>();
function loadDefinitions(family: FamilyName, kit: CallKit): Promise<void> {
  let loading = familiesLoaded.get(family);
  if (!loading) {
    loading = import('@cloudcall/catalog/lazy')
      .then(({ loadFamily }) => loadFamily(family))
      .then((loaded) => {
        for (const tool of [...loaded.tools, ...kit.guard.guardTools]) {
          if (!definitions.has(tool.name)) definitions.set(tool.name, tool);
        }
      });
    // A family that failed to load is tried again by the next call.
    loading.catch(() => familiesLoaded.delete(family));
    familiesLoaded.set(family, loading);
  }
  return loading;
}

/**
 * The definition a listed tool runs: its read-only form when that is what was listed (selection
 * offers it with --read-only), so a call is held to what the listing said.
 */
function definitionOf(listed: ToolData): AnyTool | undefined {
  const definition = definitions.get(listed.name);
  return listed.annotations.readOnlyHint && !definition?.annotations.readOnlyHint
    ? definition?.readOnlyForm
    : definition;
}

/**
 * The definition a call to a listed tool runs, its family loaded if it was not yet: what decides
 * whether a call becomes a task (tasks/tool-tasks.ts) before it runs.
 */
export async function loadDefinition(listed: ToolData): Promise<AnyTool | undefined> {
  const kit = await loadCallKit();
  await loadDefinitions(listed.family, kit);
  return definitionOf(listed);
}

/** Loads what calls need (core, the guard, the API client) ahead of the first call. */
export function warmUp(options: Pick<McpServerOptions, 'client' | 'log'>): void {
  loadCallKit().catch((error: unknown) => options.log(`could not load the tools: ${String(error)}`));
  options.client().catch(() => undefined);
}

/** Nothing to wait for: a call without a progress token. */
const noProgress = { report: undefined, sent: () => Promise.resolve() };

/**
 * Passes a tool's progress reports on as `notifications/progress`, when the call asked for them
 * with a progress token; a report that cannot be sent (the caller has gone) is dropped. `sent`
 * settles once every report so far is written: the call's answer waits for it, since a client
 * drops a report that comes after the answer (the last one, which fills a wait's bar).
 */
function progressSender(
  token: string | number | undefined,
  extra: { sendNotification: (notification: ServerNotification) => Promise<void> },
): { report: ((update: ToolProgress) => void) | undefined; sent: () => Promise<void> } {
  if (token === undefined) return noProgress;
  let last: Promise<void> = Promise.resolve();
  return {
    report: ({ progress, total, message }) => {
      const sending = extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress, total, message },
        })
        .catch(() => undefined);
      last = Promise.all([last, sending]).then(() => undefined);
    },
    sent: () => last,
  };
}

/** What a tools/call needs of the request it answers, from the SDK server or a fast path. */
export interface CallExtra {
  signal: AbortSignal;
  authInfo?: AuthInfo | undefined;
  requestId: string | number;
  sendNotification: (notification: ServerNotification) => Promise<void>;
  /** The session's SDK server, for confirmation through elicitation; none without a session. */
  server?: AskingServer | undefined;
  /** Over HTTP, the request's headers (the SDK's requestInfo): how its log lines find it. */
  requestInfo?: { headers: Record<string, string | string[] | undefined> } | undefined;
  /** Set when the call runs as a task (tasks/). */
  task?: TaskHooks | undefined;
  /**
   * A request at protocol revision 2026-07-28: it is asked to confirm in its answer (multi round
   * trip) when it declared form elicitation, and a retry brings the answer and the question's state.
   */
  rounds?: CallRounds | undefined;
}

/** What a modern request says of confirmation: whether it can be asked, and this round's answer. */
export interface CallRounds {
  canAsk: boolean;
  state: string | undefined;
  responses: Record<string, unknown> | undefined;
}

export type ToolCall = (params: CallToolRequestParams, extra: CallExtra) => Promise<CallToolResult>;

/**
 * What is left of a task's call once the tool's answer is in: the wait for what it started, as
 * the tool's `wait` field names it. Ids only (never the call's arguments): a replica that takes
 * the task over resumes the wait from this, and never sends the tool's request again.
 */
export interface TaskWaits {
  kind: WaitKind;
  /** Each thing to wait for; none when the answer yields nothing to wait for. */
  targets: { ID: string; Name?: string }[];
  /** When the wait gives up, in ms on the clock waits count in (`McpServerOptions.clock`). */
  deadline: number;
}

/**
 * A call run as a task (tasks/). `sending` runs before each request that changes something, after
 * the guard let it through: the task is recorded then (throwing stops the request). A tool with a
 * `wait` field waits, after its answer, for what it started (as the CLI's --wait does) and answers
 * the ready resource; `started` is told what is left before the wait begins, and the call goes on
 * once it settles (a rejection ends the call). Progress goes to `progress` instead of
 * notifications/progress. `resume`: the tool's answer came in an earlier run (on a replica that
 * stopped): only the wait runs, the tool is not called.
 */
export interface TaskHooks {
  sending?: (() => Promise<void>) | undefined;
  started(remaining: TaskWaits): Promise<void>;
  progress(update: ToolProgress): void;
  resume?: TaskWaits | undefined;
}

/**
 * tools/call for the offered tools (not dynamic mode's toolset tools, which are a session's).
 * Made once and shared: by every SDK server of the process, and by the fast paths. Throws the
 * -32602 ProtocolError for a tool not offered.
 */
export function createToolCall(options: McpServerOptions): ToolCall {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const hidden = options.hidden ?? new Map<string, string>();
  const dynamic = options.toolMode === 'dynamic';
  const logCall = options.logCall ?? options.log;
  /** The `wait` calls each caller has in flight, held to --max-waits-per-caller. */
  const waiting = new CallerCounts();
  /** The definitions of the tools offered, as they are found: each call's tool, or `offered`. */
  const found = new Map<string, AnyTool>();
  /**
   * The definitions of all the tools offered, what `plan` may plan (its guard session's `tools`):
   * complete before `plan` runs, which loads every family offered; for other tools, those found
   * so far (nothing else reads it).
   */
  let everyFamily: Promise<void> | undefined;
  const offered = async (kit: CallKit) => {
    everyFamily ??= Promise.all(
      [...new Set(options.tools.map((tool) => tool.family))].map((family) => loadDefinitions(family, kit)),
    ).then(() => {
      for (const tool of options.tools) {
        const definition = definitionOf(tool);
        if (definition) found.set(tool.name, definition);
      }
    });
    await everyFamily;
  };
  const definitionFor = async (listed: ToolData, kit: CallKit): Promise<AnyTool | undefined> => {
    let definition = found.get(listed.name);
    if (definition) return definition;
    await loadDefinitions(listed.family, kit);
    definition = definitionOf(listed);
    if (definition) found.set(listed.name, definition);
    return definition;
  };
  return async ({ name, arguments: args, _meta }, extra) => {
    const listed = byName.get(name);
    if (!listed) throw await unknownTool(name, hidden.get(name), [...byName.keys()], dynamic);
    const started = Date.now();
    // Once loaded, the kit and the definition are taken as they are: every await is a turn of the
    // event loop, and a call of a warm server waits for nothing here but its client.
    const [kit, client] = loadedKit
      ? [loadedKit, await options.client(extra.authInfo)]
      : await Promise.all([loadCallKit(), options.client(extra.authInfo)]);
    const { maskSecrets, rateLimitNote } = kit.core;
    /** The caller whose wait this is, holding one of its --max-waits-per-caller. */
    let waiter: string | undefined;
    try {
      const definition = found.get(name) ?? (await definitionFor(listed, kit));
      if (!definition) throw new Error(`tool ${name} is listed but has no definition; rebuild the server`);
      const { task } = extra;
      // A task's progress is its status (tasks/get), never notifications/progress.
      const { report: progress, sent: progressSent } = task
        ? { report: task.progress, sent: noProgress.sent }
        : progressSender(_meta?.progressToken, extra);
      if (definition.name === kit.guard.auditListTool.name) await options.checkToken?.(extra.authInfo);
      if (definition.name === kit.guard.planTool.name) await offered(kit);
      let input = args ?? {};
      // A task holds no request open: --max-wait-seconds and --max-waits-per-caller are for those.
      if (options.waits && definition.name === kit.wait.name && !task) {
        // The key's name or the token's hash, as audit lines name the caller (http.ts).
        const caller = extra.authInfo?.clientId ?? '';
        if (!waiting.take(caller, options.waits.perCaller)) throw waitShareRefusal(options.waits.perCaller);
        waiter = caller;
        input = boundedWait(input, options.waits.maxSeconds, kit.wait.defaultSeconds);
      }
      const context = {
        // The guard's own hook (confirmation, quota, audit) runs before this one.
        client: task?.sending ? client.forCall({ beforeMutation: task.sending }) : client,
        signal: extra.signal,
        progress,
        clock: options.clock,
      };
      let result = task?.resume
        ? undefined
        : await runGuarded(kit.guard, definition, input, context, {
            server: extra.server,
            guard: options.guard ?? { confirm: 'auto', rules: [] },
            offered: found,
            requestId: extra.requestId,
            // The key's name or the token's hash (http.ts); none on stdio: the guard's local user.
            caller: extra.authInfo?.clientId,
            auditScope: options.auditScope ?? 'all',
            sessionless: options.stateless,
            rounds:
              extra.rounds && options.requestState
                ? { ...extra.rounds, ...options.requestState, args: argumentsDigest(args ?? {}) }
                : undefined,
          });
      let waited = false;
      if (task && (task.resume || definition.wait)) {
        result = await waitInTask(kit, task, definition, args ?? {}, result, context);
        waited = true;
      }
      // The last progress report (a wait's full bar) goes out before the answer, which ends it.
      if (progressSent !== noProgress.sent) await progressSent();
      const ms = Date.now() - started;
      logCall(`tool ${name}: ok in ${ms} ms`, extra);
      options.onCall?.(name, 'ok', ms, extra);
      const budget = rateLimitNote(client.rateLimit);
      const waits = definition.wait && !waited ? kit.pendingWaits(definition.wait, args ?? {}, result) : [];
      return success(
        // A secret the tool exists to hand over (a new Spaces key's) is shown: it cannot be read again.
        options.showSecrets ? result : maskSecrets(result, definition.reveals),
        waits.length || budget
          ? [
              ...(waits.length ? [waitNote(waits)] : []),
              ...(budget ? [`Note: ${budget}. Make fewer calls until then.`] : []),
            ]
          : NO_NOTES,
      );
    } catch (error) {
      if (error instanceof kit.guard.ConfirmationPending) {
        logCall(`tool ${name}: asked to confirm`, extra);
        return asked(error.question as PendingQuestion);
      }
      let report =
        error instanceof ShareRefusal
          ? error.report
          : (guardReport(kit.guard, error) ?? (await loadReportError())(error));
      if (options.tokenFromRequest && report.status === 401) report = { ...report, hint: REQUEST_TOKEN_HINT };
      (options.warn ?? options.log)(`tool ${name}: ${report.message}`, extra);
      options.onCall?.(name, 'error', Date.now() - started, extra);
      // A wait's last observed state is the platform's JSON too: its secrets are hidden alike.
      return failure(options.showSecrets ? report : (maskSecrets(report) as ErrorReport));
    } finally {
      if (waiter !== undefined) waiting.release(waiter);
    }
  };
}

const NO_NOTES: readonly string[] = [];

/**
 * A task's wait: for what the tool's answer yields (told to `started`, which records it, before
 * waiting), or for what an earlier run recorded (`resume`). Answers the ready resource, as `wait`
 * does, or the tool's answer when it yields nothing to wait for.
 */
async function waitInTask(
  kit: CallKit,
  task: TaskHooks,
  definition: AnyTool,
  args: Record<string, unknown>,
  answer: unknown,
  context: ToolContext,
): Promise<unknown> {
  const clock = context.clock ?? { now: Date.now };
  let remaining = task.resume;
  if (!remaining) {
    const wait = definition.wait as NonNullable<AnyTool['wait']>;
    remaining = {
      kind: wait.kind,
      targets: kit.waitTargets(wait, args, answer),
      deadline: clock.now() + kit.waitSecondsFor(wait.kind) * 1000,
    };
    await task.started(remaining);
  }
  if (remaining.targets.length === 0) return answer;
  const left = Math.max(1, Math.ceil((remaining.deadline - clock.now()) / 1000));
  return kit.waitForTargets(remaining.kind, remaining.targets, context, left);
}

/**
 * A call's answer that is a question (protocol revision 2026-07-28's input_required result): the
 * client asks its user, then calls again with the answer and the state as it came.
 */
function asked(question: PendingQuestion): CallToolResult {
  return {
    resultType: 'input_required',
    inputRequests: { confirm: { method: 'elicitation/create', params: question.form } },
    requestState: question.requestState,
  } as unknown as CallToolResult;
}

/**
 * A call to a tool this server does not offer: the JSON-RPC error -32602 the specification lists
 * for an unknown tool (a protocol error, not a tool result), whether the name is no tool at all or
 * one a flag hides. The message says which, and `data` carries the same facts an error result's
 * structuredContent would (error_id, hint). The SDK (for its ProtocolError) loads here, the
 * first time a call names a tool that is not offered.
 */
async function unknownTool(
  name: string,
  reason: string | undefined,
  offered: readonly string[],
  dynamic: boolean,
): Promise<ProtocolError> {
  const { ProtocolError, ProtocolErrorCode } = await import('@modelcontextprotocol/server');
  if (reason) {
    return new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} is not available: ${reason}.`, {
      error_id: 'tool_hidden',
      hint: 'The person running this server chose the tools it offers; use another tool or ask them to change the flag.',
    });
  }
  const near = closest(name, offered);
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Unknown tool ${name}.${near.length ? ` Did you mean ${near.join(', ')}?` : ''}`,
    {
      error_id: 'unknown_tool',
      hint: dynamic
        ? 'toolset-list shows the tools this server offers.'
        : 'tools/list shows the tools this server offers.',
    },
  );
}

/**
 * The JSON of a successful result's structuredContent, which `success` made for its text block:
 * `answerText` writes it as it is instead of making it again.
 */
const structuredTexts = new WeakMap<CallToolResult, string>();

/**
 * A result: compact JSON text, and the same object as structuredContent when it is an object.
 * A note (the API's rate limit running low) follows as a second text block, outside the data.
 */
export function success(result: unknown, notes: readonly string[] = NO_NOTES): CallToolResult {
  const text = JSON.stringify(result) ?? 'null';
  const content: CallToolResult['content'] = [{ type: 'text', text }];
  for (const note of notes) content.push({ type: 'text', text: note });
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return { content };
  const answer: CallToolResult = { content, structuredContent: result as Record<string, unknown> };
  structuredTexts.set(answer, text);
  return answer;
}

/**
 * The JSON-RPC answer to request `id` with `result`, as a line of text: the same text as
 * `JSON.stringify({ result, jsonrpc: '2.0', id })`, the answer the SDK's Protocol sends.
 */
export function answerText(id: RequestId, result: CallToolResult): string {
  const structured = structuredTexts.get(result);
  // Only a result as `success` made it, with no key added since (nothing adds one).
  const text =
    structured !== undefined && Object.keys(result).length === 2
      ? `{"content":${JSON.stringify(result.content)},"structuredContent":${structured}}`
      : JSON.stringify(result);
  return `{"result":${text},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/**
 * What a create or an action started, when its answer does not show it ready yet: the exact
 * `wait` calls that block until it is (from the tool's `wait` field, as the CLI's --wait uses).
 */
function waitNote(waits: readonly object[]): string {
  const calls = waits.map((wait) => JSON.stringify(wait)).join(', ');
  return `Next: this is not ready yet. To block until it is, call wait with ${calls}${waits.length > 1 ? ' (one call each)' : ''}.`;
}

/** A failure: the message as text (with the hint), and every fact as structuredContent. */
export function failure(report: ErrorReport): CallToolResult {
  const text = report.hint ? `${report.message}\nHint: ${report.hint}` : report.message;
  // In the order of the SDK's result schema, whose parse (on the SDK's path) puts keys so: both
  // paths then write the same bytes.
  return {
    content: [{ type: 'text', text }],
    structuredContent: report as unknown as Record<string, unknown>,
    isError: true,
  };
}
