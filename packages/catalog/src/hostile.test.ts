/**
 * Hostile input against every tool, through the library API, over the sandbox on loopback.
 *
 * 1. Path safety: every argument of every tool, in an otherwise valid call, is given dot
 *    segments (plain and percent-encoded), slashes and control characters. A path argument must be
 *    refused naming it with no request sent; whatever else happens, no request may leave whose
 *    path is not the tool's template filled in with the tool's own argument values.
 * 2. A property-based test (fast-check) throws generated arguments at every tool: valid ones from
 *    the tool's published JSON Schema, and ones with an argument swapped for a hostile value.
 *    Asserted: no internal error (only input errors and 4xx API errors), every refusal names an
 *    argument of the tool, every request that leaves matches the tool's path template.
 *
 * The sandbox reports the raw request target of every request it receives, before any parsing,
 * so a path normalised on the way (as `..` would be) is seen as sent.
 */
import {
  type AnyTool,
  ApiClient,
  ApiError,
  bindTools,
  InputError,
  parseArgs,
  UnexpectedResponseError,
} from '@cloudcall/core';
import { camelName, inputJsonSchema, slashedSegmentProblem } from '@cloudcall/core/internal';
import { subset } from '@cloudcall/openapi-subset';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { PATH_HOSTILE } from '@cloudcall/testing';
import {
  arbitraryOf,
  confined,
  hostileArgumentsOf,
  type JsonSchema,
  preview,
  TOOL_EXAMPLES,
  type ToolShape,
} from '@cloudcall/testing/arbitrary';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { families, toolsOf } from './index.js';

const tools = toolsOf(families);

interface Seen {
  method: string;
  target: string;
  status: number;
}

let sandbox: Sandbox;
let client: ApiClient;
let seen: Seen[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ onRequest: (info) => seen.push(info) });
  // One attempt: a 5xx is a finding, not something to retry past.
  client = new ApiClient({ token: 'hostile-test', baseUrl: sandbox.url, retry: { maxAttempts: 1 } });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

interface Template {
  method: string;
  path: string;
  pattern: RegExp;
  names: string[];
}

function compile(method: string, path: string): Template {
  const names: string[] = [];
  const source = path
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/?#]+)';
    })
    .join('');
  return { method, path, pattern: new RegExp(`^${source}$`), names };
}

/** Every operation of the API description: the templates a handler tool's requests must fit. */
const apiTemplates = Object.values(subset.operations).map((op) => compile(op.method, op.path));

const templates = new Map<AnyTool, Template[]>();
function templatesOf(tool: AnyTool): Template[] {
  let found = templates.get(tool);
  if (!found) {
    found = tool.request ? [compile(tool.request.method, tool.request.path)] : apiTemplates;
    templates.set(tool, found);
  }
  return found;
}

/** The scalar values among a call's arguments, as text: what a path segment may be filled with. */
function argumentTexts(args: Record<string, unknown>): Set<string> {
  const texts = new Set<string>();
  const stack: unknown[] = [args];
  while (stack.length) {
    const value = stack.pop();
    if (value !== null && typeof value === 'object') stack.push(...Object.values(value));
    else if (value !== undefined) texts.add(String(value));
  }
  return texts;
}

/**
 * Why a request the sandbox saw is not the tool's template filled in with the call's arguments,
 * or undefined when it is.
 */
function requestProblem(tool: AnyTool, args: Record<string, unknown>, request: Seen): string | undefined {
  const path = request.target.split('?', 1)[0] ?? '';
  const texts = argumentTexts(args);
  for (const template of templatesOf(tool)) {
    if (template.method !== request.method) continue;
    const match = template.pattern.exec(path);
    if (!match) continue;
    const fits = template.names.every((name, i) => {
      let segment: string;
      try {
        segment = decodeURIComponent(match[i + 1] ?? '');
      } catch {
        return false;
      }
      // A value that may hold "/" (a repository's `team/api`) is sent as one segment, "/" as %2F:
      // each of its parts is then what a segment may be.
      const parts = slashedOf(tool).has(name) ? segment.split('/') : [segment];
      if (parts.some((part) => part === '' || part === '.' || part === '..' || /[/\\]/.test(part)))
        return false;
      return tool.request ? segment === String(args[name]) : texts.has(segment);
    });
    if (fits) return undefined;
  }
  return `${tool.name} sent ${request.method} ${request.target}, which is not ${tool.request ? `${tool.request.method} ${tool.request.path}` : 'an API operation'} filled in with its arguments`;
}

/** The arguments a tool's request sends with their "/" as %2F (RequestMapping's `slashed`). */
const slashedOf = (tool: AnyTool) => new Set<string>(tool.request?.slashed ?? []);

type Outcome = { ok: true } | { ok: false; error: unknown };

/** Each tool's function of the library API, bound to the sandbox's client once. */
const bound = new Map<AnyTool, (args: unknown) => Promise<unknown>>();

async function callTool(tool: AnyTool, raw: unknown): Promise<{ outcome: Outcome; requests: Seen[] }> {
  let call = bound.get(tool);
  if (!call) {
    const api = bindTools(client, [tool]) as unknown as Record<string, (args: unknown) => Promise<unknown>>;
    call = api[camelName(tool.name)] as (args: unknown) => Promise<unknown>;
    bound.set(tool, call);
  }
  seen = [];
  let outcome: Outcome;
  try {
    await call(raw);
    outcome = { ok: true };
  } catch (error) {
    outcome = { ok: false, error };
  }
  return { outcome, requests: seen };
}

/**
 * What is wrong with a call, whatever its arguments: [] when it passed every check. The checks run
 * as plain code and one assertion per call states them all: an expect() per check (thousands of
 * calls, a dozen checks each) was a large part of the file's time.
 */
function problemsOf(tool: AnyTool, raw: unknown, outcome: Outcome, requests: Seen[]): string[] {
  const problems: string[] = [];
  const shape = Object.keys(tool.input.shape);
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = parseArgs(tool, raw) as Record<string, unknown>;
  } catch {
    parsed = undefined;
  }
  const label = () => `${tool.name}(${preview(raw)})`;
  if (!outcome.ok) {
    const { error } = outcome;
    const internal = !(
      error instanceof InputError ||
      (error instanceof ApiError && error.status < 500 && !(error instanceof UnexpectedResponseError))
    );
    if (internal) problems.push(`${label()} failed with an internal error: ${String(error)}`);
    if (error instanceof InputError) {
      // Keys the caller gave, inherited ones too (a polluted prototype is still the caller's input).
      const given: string[] = [];
      if (raw !== null && typeof raw === 'object') for (const key in raw) given.push(key === '' ? '""' : key);
      const names = [...shape, ...given];
      for (const issue of error.issues) {
        // The argument named is one of the tool's, one the caller gave, or the arguments object itself.
        const { argument } = issue;
        if (
          !(
            argument === 'arguments' ||
            names.some((name) => argument === name || argument.startsWith(`${name}.`))
          )
        ) {
          problems.push(
            `${label()}: a refusal that names no argument of the call: "${argument}: ${issue.message}"`,
          );
        }
      }
    }
  }
  if (!parsed) {
    if (requests.length) {
      problems.push(
        `${label()} was refused by validation but sent requests: ${requests.map((r) => `${r.method} ${r.target}`).join(', ')}`,
      );
    }
    return problems;
  }
  for (const request of requests) {
    if (request.status >= 500) {
      problems.push(
        `${label()}: the sandbox failed (${request.status}) on ${request.method} ${request.target}`,
      );
    }
    const problem = requestProblem(tool, parsed, request);
    if (problem) problems.push(problem);
  }
  return problems;
}

function shapeOf(tool: AnyTool): ToolShape {
  return {
    name: tool.name,
    schema: inputJsonSchema(tool) as JsonSchema,
    arguments: Object.keys(tool.input.shape),
  };
}

/** One valid set of arguments for a tool (its example, or sampled from its schema and accepted). */
function validArgs(tool: AnyTool): Record<string, unknown> {
  const example = TOOL_EXAMPLES[tool.name];
  if (example) {
    parseArgs(tool, example);
    return example;
  }
  const arbitrary = arbitraryOf(inputJsonSchema(tool) as JsonSchema);
  // The first accepted of 500 samples, drawn in growing batches: a seed draws the same samples first
  // however many are asked for, and the first one usually fits (drawing 500 for every tool cost
  // seconds).
  for (const numRuns of [8, 64, 500]) {
    for (const candidate of fc.sample(arbitrary, { numRuns, seed: 42 })) {
      const args = confined(tool.name, candidate) as Record<string, unknown>;
      try {
        parseArgs(tool, args);
        return args;
      } catch {
        // not every schema refinement is in the JSON Schema: try the next sample
      }
    }
  }
  throw new Error(`no valid arguments found for ${tool.name}`);
}

describe('no request leaves with another path than the tool template filled in', () => {
  const withArguments = tools.filter((tool) => Object.keys(tool.input.shape).length > 0);
  it.each(withArguments.map((tool) => [tool.name, tool] as const))('%s', async (_name, tool) => {
    const base = validArgs(tool);
    const pathArgs = new Set(
      [...(tool.request?.path.matchAll(/\{(\w+)\}/g) ?? [])].map((match) => match[1] as string),
    );
    for (const argument of Object.keys(tool.input.shape)) {
      for (const value of PATH_HOSTILE) {
        const raw = confined(tool.name, { ...base, [argument]: value });
        const { outcome, requests } = await callTool(tool, raw);
        const problems = problemsOf(tool, raw, outcome, requests);
        const call = `${tool.name} ${argument}=${JSON.stringify(value)}`;
        if (slashedOf(tool).has(argument) && slashedSegmentProblem(value) === undefined) {
          // Parts joined by "/" (`a/b`), where the platform takes them: one segment, "/" as %2F.
          const encoded = `/${encodeURIComponent(value)}/`;
          if (!requests.length || !requests.every((request) => request.target.includes(encoded)))
            problems.push(`${call} was not sent as the one segment ${encoded}`);
        } else if (pathArgs.has(argument)) {
          // A path argument with a value that is not one segment is refused, naming it, before any request.
          const error = outcome.ok ? undefined : outcome.error;
          if (!(error instanceof InputError)) problems.push(`${call} was not refused as invalid input`);
          else if (!error.issues.some((issue) => issue.argument === argument)) {
            problems.push(`${call} was refused without naming ${argument}`);
          }
          if (requests.length) problems.push(`${call} sent requests`);
        }
        expect(problems).toEqual([]);
      }
    }
  });
});

describe('generated arguments against every tool (property-based)', () => {
  it.each(tools.map((tool) => [tool.name, tool] as const))('%s', async (_name, tool) => {
    await fc.assert(
      fc.asyncProperty(hostileArgumentsOf(shapeOf(tool)), async (raw) => {
        const { outcome, requests } = await callTool(tool, raw);
        expect(problemsOf(tool, raw, outcome, requests)).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });
});
