/**
 * Tool calls as tasks: which calls become one (from the tools' definitions, never a list of
 * names), and their runs through the process's one tool runner (tool-call.ts), so a task's call
 * is guarded, audited, logged and answered as any other call is.
 */

import { DEFAULT_WAIT_SECONDS, waitSecondsFor, waitTool } from '@cloudcall/wait';
import type { AuthInfo, CallToolRequestParams } from '@modelcontextprotocol/server';
import { type CallExtra, loadDefinition, type ToolCall } from '../tool-call.js';
import type { ToolData } from '../tool-data.js';
import type { TaskRecord } from './record.js';
import type { TaskPlan, TaskRun, TaskRunContext } from './service.js';

/**
 * How a call to `listed` with `args` runs as a task, or undefined when it does not become one:
 * a tool whose definition has a `wait` (it creates or acts on something that is ready later: the
 * task waits for that, as the CLI's --wait does), and the `wait` tool itself. A `wait` call whose
 * arguments do not parse is no task: it is answered at once with what is wrong.
 */
export async function planTask(
  listed: ToolData | undefined,
  args: Record<string, unknown> | undefined,
): Promise<TaskPlan | undefined> {
  if (!listed) return undefined;
  const definition = await loadDefinition(listed);
  if (definition?.wait)
    return { kind: definition.wait.kind, waitSeconds: waitSecondsFor(definition.wait.kind) };
  if (definition?.name !== waitTool.name) return undefined;
  const parsed = waitTool.input.safeParse(args ?? {});
  if (!parsed.success) return undefined;
  return {
    kind: parsed.data.Kind,
    waitSeconds: parsed.data.TimeoutSeconds ?? DEFAULT_WAIT_SECONDS,
    rerunArgs: args ?? {},
  };
}

/**
 * A task's run: the call through the tool runner, with the task's signal (the request's only until
 * the task is recorded: a client that goes away then does not stop its task) and its hooks (the
 * task recorded before the request is sent, the wait after the answer, the progress as status).
 * `extra` is the tools/call request's.
 */
export function toolTaskRun(call: ToolCall, params: CallToolRequestParams, extra: CallExtra): TaskRun {
  return (context) =>
    call(params, {
      ...extra,
      signal: context.signal,
      task: { sending: context.sending, started: context.started, progress: context.progress },
    });
}

/**
 * What the task service runs for a task taken over from a replica that stopped: the wait it
 * recorded (the tool is not called: its request was sent already), or a `wait` call again whole.
 * `auth` is the credentials of the request that found it (tasks/get), undefined in a sweep.
 */
export function toolTaskResume(call: ToolCall) {
  return (record: TaskRecord, context: TaskRunContext, auth: AuthInfo | undefined) =>
    call(
      { name: record.tool, arguments: record.rerunArgs ?? {} },
      {
        signal: context.signal,
        authInfo: auth,
        requestId: record.taskId,
        sendNotification: async () => undefined,
        task: { started: context.started, progress: context.progress, resume: record.remaining },
      },
    );
}
