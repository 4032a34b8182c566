/**
 * Every operation of the model (all 659), through the tools as an agent runs them: api-describe
 * answers it by operationId and by `METHOD /template`, and an api-call of it with a body that
 * breaks its schema is refused as an InputError before anything is sent. The calls go through a
 * real client to a real HTTP server on loopback that counts what reaches it: nothing may.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApiClient, createClient, InputError, runTool } from '@cloudcall/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operations } from './model.js';
import type { JsonSchema, OperationData } from './model-data.js';
import { apiCallTool, apiDescribeTool } from './tools.js';
import { validationData } from './validation.js';

const VALIDATION = validationData();

const received: string[] = [];
let server: Server;
let client: ApiClient;

beforeAll(async () => {
  server = createServer((request, response) => {
    received.push(`${request.method} ${request.url}`);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = createClient({
    token: 'walk-token',
    baseUrl: `http://127.0.0.1:${port}`,
    retry: { maxAttempts: 1 },
  });
});

afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});

/** A value a parameter's schema takes, as text: what a concrete path or query holds. */
function plausible(schema: JsonSchema | undefined): string {
  if (typeof schema !== 'object') return 'x1';
  if (Array.isArray(schema.enum)) return String(schema.enum[0]);
  if (Array.isArray(schema.anyOf)) return '7';
  switch (schema.format) {
    case 'uuid':
      return '5a4981aa-9653-4bd1-bef5-d6bff52042e4';
    case 'date':
      return '2024-05-01';
    case 'ipv4':
      return '192.0.2.1';
    case 'ipv6':
      return '2001:db8::1';
  }
  if (schema.type === 'integer' || schema.type === 'number') return '7';
  if (schema.type === 'boolean') return 'true';
  if (typeof schema.pattern === 'string') return 'web';
  return 'x1';
}

/** The operation's path with each parameter filled with a value its schema takes. */
const concrete = (operation: OperationData) =>
  operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(plausible(VALIDATION.operations[operation.id]?.path?.[name])),
  );

/** Its required query parameters, each with a value its schema takes. */
const requiredQuery = (operation: OperationData) =>
  Object.fromEntries(
    (operation.params ?? [])
      .filter((param) => param.in === 'query' && param.required)
      .map((param) => [param.name, plausible(VALIDATION.operations[operation.id]?.query?.[param.name])]),
  );

type Schema = Record<string, unknown>;
const resolved = (schema: unknown): Schema | undefined => {
  let node = schema as Schema | undefined;
  while (node && typeof node.$ref === 'string')
    node = VALIDATION.components.schemas[node.$ref.split('/').pop() as string] as Schema;
  return node && typeof node === 'object' ? node : undefined;
};

/** The fields a body schema names at its top, through allOf, oneOf and anyOf. */
function fieldsOf(schema: unknown, found: Record<string, Schema | undefined> = {}) {
  const node = resolved(schema);
  for (const [name, sub] of Object.entries((node?.properties ?? {}) as Record<string, unknown>))
    found[name] ??= resolved(sub);
  for (const key of ['allOf', 'oneOf', 'anyOf'])
    for (const branch of (node?.[key] ?? []) as unknown[]) fieldsOf(branch, found);
  return found;
}

/**
 * Bodies its schema refuses: a list where its object of fields goes, and an object giving each
 * field it names a value of another type (a number where text goes, text where anything else
 * does). For an operation that takes no body, any body at all.
 */
function breaking(operation: OperationData): unknown[] {
  if (!operation.body) return [{ name: 'x' }];
  const wrong: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fieldsOf(VALIDATION.operations[operation.id]?.body))) {
    if (!field || field.readOnly) continue;
    if (field.type === 'string') wrong[name] = 7;
    else if (field.type || field.properties || field.allOf || field.anyOf || field.oneOf) wrong[name] = 'x';
  }
  return [[{ name: 'x' }], wrong];
}

const refusal = async (run: () => Promise<unknown>): Promise<InputError> => {
  try {
    await run();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('it was not refused');
};

describe('every operation of the model', () => {
  const all = operations();
  it('is all 659 of the description', () => {
    expect(all).toHaveLength(659);
  });

  it('is described by api-describe, by operationId and by METHOD /template', async () => {
    for (const operation of all) {
      const byId = (await runTool(apiDescribeTool, { Operation: operation.id }, { client })) as {
        operationId: string;
      };
      expect(byId.operationId).toBe(operation.id);
      const byTemplate = await runTool(
        apiDescribeTool,
        { Operation: `${operation.method} ${operation.path}` },
        { client },
      );
      expect(byTemplate, `${operation.method} ${operation.path}`).toEqual(byId);
    }
  });

  it('is refused by api-call, with nothing sent, when its body breaks the schema', async () => {
    // Compiling each schema must warn of nothing (an unknown format is logged by Ajv, on stderr).
    const warn = vi.spyOn(console, 'warn');
    received.length = 0;
    const problems: string[] = [];
    let calls = 0;
    for (const operation of all) {
      for (const body of breaking(operation)) {
        const args = {
          Method: operation.method,
          Path: concrete(operation),
          ...(Object.keys(requiredQuery(operation)).length ? { Query: requiredQuery(operation) } : {}),
          Body: body,
        };
        calls++;
        const error = await refusal(() => runTool(apiCallTool, args, { client }));
        const named = error.issues.map((issue) => issue.argument);
        if (operation.host) {
          // Served elsewhere (the inference endpoints, with a model access key): api-call never
          // sends one, whatever its body. Their paths are not the API's /v2/ paths.
          if (!named.includes('Path'))
            problems.push(`${operation.id} (at ${operation.host}): ${error.message}`);
        } else if (!named.length || named.some((argument) => !argument.startsWith('Body'))) {
          // Refused for its body alone: the path and query the test fills in are ones it takes.
          problems.push(
            `${operation.id} ${args.Method} ${args.Path} ${JSON.stringify(body)}: ${error.message}`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
    expect(calls).toBe(659 + all.filter((operation) => operation.body).length);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
    expect(received).toEqual([]);
  });

  it('reaches the stand-in when the call is one it takes (the test would see a request sent)', async () => {
    // The counting server does count: a valid call of the walk's kind arrives.
    received.length = 0;
    await runTool(apiCallTool, { Method: 'GET', Path: '/v2/droplets/7' }, { client });
    expect(received).toEqual(['GET /v2/droplets/7']);
  });
});
