/**
 * Hostile arguments through the guard (property-based, fast-check), for every tool that changes
 * something, destructive or not, against the sandbox on loopback with protection rules and an
 * audit log set: the layer both apps run calls through, which walks, masks and logs the raw
 * arguments before the tool validates them (where a lone surrogate and a value nested 100,000
 * deep crashed it once).
 *
 * The arguments are the catalog hostile test's (from `@cloudcall/testing/arbitrary`): valid ones
 * from the tool's JSON Schema, the same with one argument swapped for a hostile value (dot
 * segments, control characters, lone surrogates, huge and deeply nested values, wrong types,
 * `__proto__` and `constructor` keys), or a hostile value instead of the arguments. Some runs aim
 * at a VM the rules protect, and put a known secret in the tool's secret arguments.
 *
 * Asserted for `guardedRun` and `planCall`: nothing thrown but cloudcall's own errors (input
 * errors, guard refusals, 4xx API errors), never an internal error; invalid arguments send no
 * request at all; a refusal, a decline and a plan send nothing that changes anything; the one
 * audit line per call is JSON naming the tool and outcome, without the secrets or the token; a
 * plan is JSON without the secrets; `Object.prototype` stays clean.
 */
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { families, toolsOf } from '@cloudcall/catalog';
import {
  type AnyTool,
  ApiError,
  InputError,
  parseArgs,
  runTool,
  UnexpectedResponseError,
} from '@cloudcall/core';
import { errorReport, inputJsonSchema } from '@cloudcall/core/internal';
import { connectSandbox, SANDBOX_TOKEN, type SandboxConnection } from '@cloudcall/sandbox';
import { hostileArgumentsOf, type JsonSchema, preview } from '@cloudcall/testing/arbitrary';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuditEntry,
  type AuditLine,
  type AuditLog,
  type Decision,
  type GuardOptions,
  GuardRefusal,
  guardedRun,
  openAuditLog,
  parseRule,
  planCall,
} from './index.js';

/** Fixed, so a failure is the same failure on every machine; fast-check prints the counterexample. */
const SEED = 20_260_511;
/** Per tool and per guard entry point: 106 tools x 2 x 15 calls take 6-13 s on two cores. */
const RUNS = 15;

const mutatingTools = toolsOf(families).filter((tool) => !tool.annotations.readOnlyHint);

/** Text that must never reach the audit log or a plan: planted in secret arguments below. */
const CANARY = 'CANARY-7f3a9c-secret';
/** The tools' secret arguments (from the spec), and a value each accepts that holds the canary. */
const SECRET_VALUES: Record<string, unknown> = {
  PrivateKey: `-----BEGIN PRIVATE KEY-----\n${CANARY}\n-----END PRIVATE KEY-----`,
  Signature: CANARY,
  UserData: `#cloud-config\n# ${CANARY}\n`,
};

let connection: SandboxConnection;
let audit: AuditLog;
let protectedVm: number;
/** VMs no rule protects, for a person to decline and the guard to let through (until deleted). */
let freeVms: number[] = [];
let seen: { method: string; target: string; status: number }[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cloudcall-guard-hostile-'));

beforeAll(async () => {
  // One attempt: a 5xx is a finding, not something to retry past.
  connection = await connectSandbox({
    onRequest: ({ method, target, status }) => seen.push({ method, target, status }),
    client: { retry: { maxAttempts: 1 } },
  });
  audit = openAuditLog(join(dir, 'audit.log'));
  const createVm = async (Name: string, Tags: string[]) => {
    const { droplet } = (await runTool(
      mutatingTools.find((tool) => tool.name === 'vm-create') as AnyTool,
      { Name, Size: 's-1vcpu-1gb', ImageID: 161928327, Region: 'nyc3', Tags },
      { client: connection.client },
    )) as { droplet: { id: number } };
    return droplet.id;
  };
  protectedVm = await createVm('prod-web', ['prod']);
  freeVms = [
    await createVm('scratch-1', []),
    await createVm('scratch-2', []),
    await createVm('scratch-3', []),
  ];
});
afterAll(async () => {
  audit.close();
  await connection.close();
});

const rules = () => [
  parseRule('tag:prod', '--protect'),
  parseRule('name:prod-*', 'policy'),
  parseRule(`id:${protectedVm}`, '--protect'),
];

/** How the call is confirmed: run unasked, refused unasked, or a person who accepts or declines. */
type Confirmation = 'run' | 'refuse' | Decision;

function guardOptions(confirmation: Confirmation): GuardOptions {
  const base = { frontEnd: 'mcp' as const, rules: rules(), audit, caller: 'hostile-caller' };
  if (confirmation === 'run') return { ...base, unconfirmed: 'run' };
  if (confirmation === 'refuse') return { ...base, unconfirmed: { refuse: 'add --force' } };
  return { ...base, unconfirmed: 'run', confirm: async () => confirmation };
}

/** The tool's hostile arguments; some aimed at a VM (protected or not), some carrying planted secrets. */
function callsOf(tool: AnyTool) {
  const shape = Object.keys(tool.input.shape);
  const secrets = shape.filter((name) => name in SECRET_VALUES);
  const aims = shape.filter((name) => name === 'ID' || name === 'VmID');
  return fc
    .record({
      raw: hostileArgumentsOf({
        name: tool.name,
        schema: inputJsonSchema(tool) as JsonSchema,
        arguments: shape,
      }),
      aim: aims.length ? fc.constantFrom('none', 'protected', 'free') : fc.constant('none'),
      free: fc.nat(2),
      plant: secrets.length ? fc.boolean() : fc.constant(false),
      confirmation: fc.constantFrom<Confirmation>('run', 'refuse', 'accept', 'decline', 'cancel'),
    })
    .map(({ raw, aim, free, plant, confirmation }) => {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { raw, confirmation };
      const args = { ...(raw as Record<string, unknown>) };
      if (aim !== 'none')
        for (const name of aims) args[name] = aim === 'protected' ? protectedVm : freeVms[free];
      if (plant) for (const name of secrets) args[name] = SECRET_VALUES[name];
      return { raw: args, confirmation };
    });
}

function isValid(tool: AnyTool, raw: unknown): boolean {
  try {
    parseArgs(tool, raw);
    return true;
  } catch {
    return false;
  }
}

/** Why a thrown value is not one of cloudcall's own refusals or 4xx answers, or undefined if it is. */
function internal(error: unknown): string | undefined {
  if (error === undefined || error instanceof InputError || error instanceof GuardRefusal) return undefined;
  if (error instanceof ApiError && error.status < 500 && !(error instanceof UnexpectedResponseError))
    return undefined;
  const report = errorReport(error);
  return `${error instanceof Error ? error.name : typeof error}: ${report.message}`;
}

const changing = () => seen.filter((request) => request.method !== 'GET' && request.method !== 'HEAD');

/*
 * The checks below run as plain code, collecting what is wrong, and one assertion per call states
 * it all: an expect() per check (thousands of calls, a dozen checks each) was a large part of the
 * file's time. Each problem names the call (`label`).
 */

/** Problems every call is checked for: a 5xx from the sandbox, a polluted Object.prototype. */
function cleanProblems(label: () => string): string[] {
  const problems: string[] = [];
  const failed = seen.filter((request) => request.status >= 500);
  if (failed.length) {
    problems.push(
      `${label()}: the sandbox failed: ${failed.map((r) => `${r.status} ${r.method} ${r.target}`)}`,
    );
  }
  const probe = {} as Record<string, unknown>;
  if (probe.polluted !== undefined) problems.push(`${label()} polluted Object.prototype`);
  return problems;
}

function secretProblems(label: () => string, text: string): string[] {
  const problems: string[] = [];
  if (text.includes(CANARY)) problems.push(`${label()}: a secret argument shows`);
  if (text.includes(SANDBOX_TOKEN)) problems.push(`${label()}: the token shows`);
  return problems;
}

/**
 * What was appended to a file from byte `from` on: read from there, not the whole log each call
 * (the log grows to megabytes over the run; reading it all per call made the file quadratic).
 */
function appendedSince(path: string, from: number): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(fstatSync(fd).size - from);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, from + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The guardedRun property of one tool, run once however many tests ask (memoized): resolves to
 * how its calls ended, as the audit log says ("ok", "error", "declined", "refused by rule"...).
 * Calls run one at a time: each reads the audit lines it added.
 */
const guardedRuns = new Map<string, Promise<string[]>>();
function guardedProperty(tool: AnyTool): Promise<string[]> {
  let run = guardedRuns.get(tool.name);
  if (!run) {
    run = checkGuardedRun(tool);
    guardedRuns.set(tool.name, run);
  }
  return run;
}

async function checkGuardedRun(tool: AnyTool): Promise<string[]> {
  const ends: string[] = [];
  await fc.assert(
    fc.asyncProperty(callsOf(tool), async ({ raw, confirmation }) => {
      const label = () => `${tool.name}(${preview(raw)}) [${confirmation}]`;
      const valid = isValid(tool, raw);
      const before = statSync(audit.path).size;
      seen = [];
      let error: unknown;
      try {
        await guardedRun(tool, raw, { client: connection.client }, guardOptions(confirmation));
      } catch (thrown) {
        error = thrown;
      }
      const problems: string[] = [];
      const failure = internal(error);
      if (failure) problems.push(`${label()} failed with an internal error: ${failure}`);
      problems.push(...cleanProblems(label));
      if (!valid) {
        if (!(error instanceof InputError))
          problems.push(`${label()}: invalid arguments not refused as such`);
        if (seen.length) problems.push(`${label()}: invalid arguments sent requests`);
      }
      if (error instanceof GuardRefusal && changing().length) {
        problems.push(`${label()}: ${error.outcome} but a change was sent`);
      }

      // An intent line before each change sent, then one outcome line, all JSON, naming the
      // tool, its caller and how the call ended.
      const lines = appendedSince(audit.path, before).split('\n');
      if (lines.pop() !== '') problems.push(`${label()}: the audit line is not ended`);
      let parsed: AuditLine[] = [];
      try {
        parsed = lines.map((line) => JSON.parse(line) as AuditLine);
      } catch {
        problems.push(`${label()}: an audit line is not JSON`);
      }
      const entry = parsed.pop() as AuditEntry | undefined;
      // A generic call (api-call) that came to no mutating request (a read, or refused as
      // invalid before any) leaves no line; one that changed or was refused by the guard does.
      const silent = tool.generic && !entry && !changing().length && !(error instanceof GuardRefusal);
      if (silent) ends.push('read');
      else if (!entry || 'phase' in entry) problems.push(`${label()}: no outcome line last`);
      else {
        if (!parsed.every((line) => 'phase' in line && line.phase === 'intent' && line.call === entry.call)) {
          problems.push(`${label()}: a line before the outcome is not an intent of this call`);
        }
        if (parsed.length !== changing().length) {
          problems.push(`${label()}: ${parsed.length} intent lines for ${changing().length} changes sent`);
        }
        const outcome = error === undefined ? 'ok' : error instanceof GuardRefusal ? error.outcome : 'error';
        const { tool: name, caller } = entry;
        if (name !== tool.name || caller !== 'hostile-caller' || entry.outcome !== outcome) {
          problems.push(
            `${label()}: the outcome line says ${JSON.stringify({ tool: name, caller, outcome: entry.outcome })}, not ${JSON.stringify({ tool: tool.name, caller: 'hostile-caller', outcome })}`,
          );
        }
        ends.push(entry.outcome === 'refused' ? `refused by ${entry.reason?.split(' ')[0]}` : entry.outcome);
      }
      for (const line of lines) problems.push(...secretProblems(() => `${label()} audit line`, line));
      expect(problems).toEqual([]);
    }),
    { seed: SEED, numRuns: RUNS },
  );
  return ends;
}

describe('guardedRun with hostile arguments, rules and an audit log (property-based)', () => {
  it.each(mutatingTools.map((tool) => [tool.name, tool] as const))('%s', async (_name, tool) => {
    await guardedProperty(tool);
  });

  // Alone or first in a shuffled order, this runs every tool's property itself (hence the time).
  it('reached every way a call can end, so the properties above were not all about refusals', {
    timeout: 600_000,
  }, async () => {
    const ends = new Set<string>();
    for (const tool of mutatingTools) for (const end of await guardedProperty(tool)) ends.add(end);
    expect(ends).toEqual(new Set(['ok', 'error', 'declined', 'refused by rule', 'refused by add', 'read']));
  });
});

describe('planCall with hostile arguments and rules (property-based)', () => {
  it.each(mutatingTools.map((tool) => [tool.name, tool] as const))('%s', async (_name, tool) => {
    await fc.assert(
      fc.asyncProperty(callsOf(tool), async ({ raw }) => {
        const label = () => `plan ${tool.name}(${preview(raw)})`;
        const valid = isValid(tool, raw);
        seen = [];
        let plan: Awaited<ReturnType<typeof planCall>> | undefined;
        let error: unknown;
        try {
          plan = await planCall(tool, raw, { client: connection.client }, rules());
        } catch (thrown) {
          error = thrown;
        }
        const problems: string[] = [];
        const failure = internal(error);
        if (failure) problems.push(`${label()} failed with an internal error: ${failure}`);
        problems.push(...cleanProblems(label));
        if (changing().length) problems.push(`${label()}: a plan sent a change`);
        if (!valid) {
          if (seen.length) problems.push(`${label()}: invalid arguments sent requests`);
          if (error !== undefined) problems.push(`${label()}: invalid arguments threw`);
          if (plan?.valid !== false) problems.push(`${label()}: invalid arguments planned as valid`);
          if (!plan?.issues?.length) problems.push(`${label()}: an invalid plan with no issue`);
        }
        if (plan) {
          let text = '';
          try {
            text = JSON.stringify(plan);
          } catch {
            problems.push(`${label()}: the plan is not JSON`);
          }
          problems.push(...secretProblems(label, text));
        }
        expect(problems).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
