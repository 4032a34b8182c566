/**
 * `cloudcall api PATH` against a sandbox served on loopback, whose every request the test sees:
 * reads, fields made a body or a query (`-f`, `-F`, `key[]`, `key[sub]`, files and stdin),
 * `--input`, `--paginate`, and the guard rails of every tool (no DELETE off a terminal without
 * --force, protection rules, dry runs), each refusal sending nothing. Then the api family's
 * generated commands (api-search, api-describe, api-call), help and completion.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCallArgs } from './api-request.js';
import { EXIT } from './program.js';
import { cliRunner, type Json, onTerminal } from './testing/run.js';

const TOKEN = 'dop_v1_cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc3333';
const cli = cliRunner();
let sandbox: Sandbox;
/** Every request the sandbox answered: `METHOD /path?query`. */
const seen: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ onRequest: (info) => seen.push(`${info.method} ${info.target}`) });
});
afterAll(async () => {
  await sandbox.close();
});

/** `cloudcall api ...` at the sandbox, with the requests the sandbox saw during the run. */
async function api(args: string[], input?: string) {
  const from = seen.length;
  const result = await cli.run(['--api-url', sandbox.url, '-t', TOKEN, 'api', ...args], {}, input);
  return { ...result, json: result.json as Json, requests: seen.slice(from) };
}

/** Any command at the sandbox, expecting exit 0: its JSON. */
async function ok(...args: string[]): Promise<Json> {
  const result = await cli.run(['--api-url', sandbox.url, '-t', TOKEN, ...args]);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(EXIT.ok);
  return result.json;
}

const mutating = (requests: string[]) => requests.filter((request) => !request.startsWith('GET '));

/** The JSON body a `--trace` run sent with its request. */
function sentBody(stderr: string, request: string): unknown {
  const line = stderr.split('\n').find((each) => each.startsWith(`cloudcall: trace: > ${request} `));
  const body = line?.split(' body ')[1];
  expect(body, `no body traced for ${request}:\n${stderr}`).toBeDefined();
  return JSON.parse(body as string);
}

describe('reading', () => {
  it('GET /v2/account prints the account as JSON; the /v2 may be left out', async () => {
    const result = await api(['/v2/account']);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.json.account).toMatchObject({ email: expect.stringContaining('@'), status: 'active' });
    expect(result.requests).toEqual(['GET /v2/account']);
    const short = await api(['account', '-o', 'yaml']);
    expect(short.code, short.stderr).toBe(EXIT.ok);
    expect(short.stdout).toMatch(/^account:\n {2}droplet_limit: \d+/);
    expect(short.requests).toEqual(['GET /v2/account']);
  });

  it('sends a GET with fields and a query string in PATH as the query, and applies --query', async () => {
    const result = await api([
      '-X',
      'GET',
      '/v2/regions?per_page=3',
      '-F',
      'page=2',
      '--query',
      'regions[].slug',
    ]);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.requests).toEqual(['GET /v2/regions?per_page=3&page=2']);
    expect(result.json).toHaveLength(3);
    expect(result.json.every((slug: unknown) => typeof slug === 'string')).toBe(true);
  });
});

describe('fields', () => {
  it('-f makes a POST with a JSON body of text: a tag is created', async () => {
    const result = await api(['/v2/tags', '-f', 'name=api-made', '--trace']);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.requests).toEqual(['POST /v2/tags']);
    expect(sentBody(result.stderr, 'POST /v2/tags')).toEqual({ name: 'api-made' });
    expect(result.json.tag.name).toBe('api-made');
    expect((await ok('tag-get', 'api-made')).tag.name).toBe('api-made');
    // -X POST says the same.
    const explicit = await api(['-X', 'post', '/v2/tags', '-f', 'name=api-made-2']);
    expect(explicit.code, explicit.stderr).toBe(EXIT.ok);
    expect(explicit.requests).toEqual(['POST /v2/tags']);
  });

  it('-F sends numbers and true as JSON values, key[] builds arrays, and @FILE reads a file', async () => {
    const userData = join(cli.home, 'cloud-init.yml');
    writeFileSync(userData, '#cloud-config\nruncmd: [touch /made-by-api]\n');
    const result = await api([
      '/v2/droplets',
      ...['-f', 'name=api-vm', '-f', 'size=s-1vcpu-1gb', '-f', 'region=nyc3'],
      ...['-F', 'image=161928327', '-F', 'monitoring=true', '-F', 'ipv6=false'],
      ...['-f', 'tags[]=web', '-f', 'tags[]=prod', '-F', `user_data=@${userData}`],
      '--trace',
    ]);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(sentBody(result.stderr, 'POST /v2/droplets')).toEqual({
      name: 'api-vm',
      size: 's-1vcpu-1gb',
      region: 'nyc3',
      image: 161928327,
      monitoring: true,
      ipv6: false,
      tags: ['web', 'prod'],
      user_data: '#cloud-config\nruncmd: [touch /made-by-api]\n',
    });
    expect(result.json.droplet).toMatchObject({
      name: 'api-vm',
      tags: ['web', 'prod'],
      image: { id: 161928327 },
    });
    expect(result.json.droplet.features).toContain('monitoring');
  });

  it('key[][sub] makes a list of objects and key[sub] nests, as gh does', async () => {
    const rule = (protocol: string, ports: string) => [
      ...['-f', `inbound_rules[][protocol]=${protocol}`, '-f', `inbound_rules[][ports]=${ports}`],
      ...['-f', 'inbound_rules[][sources][addresses][]=0.0.0.0/0'],
    ];
    const result = await api([
      '/v2/firewalls',
      '-f',
      'name=api-fw',
      ...rule('tcp', '22'),
      ...rule('udp', '53'),
    ]);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.json.firewall.inbound_rules).toEqual([
      { protocol: 'tcp', ports: '22', sources: { addresses: ['0.0.0.0/0'] } },
      { protocol: 'udp', ports: '53', sources: { addresses: ['0.0.0.0/0'] } },
    ]);
  });

  it('reads fields the way gh does: null, floats, big integers, empty arrays, and refuses conflicts', async () => {
    const io = {};
    expect(
      await apiCallArgs(
        '/v2/x',
        {
          field: ['a=null', 'b=1.5', 'c=-2', 'd=12345678901234567890', 'e[]', 'f=@', 'g=text=more'],
          rawField: ['h=1'],
        },
        io,
      ).catch((error: Error) => error.message),
    ).toBe('argument -F: names no file after "@"');
    expect(
      await apiCallArgs(
        'v2/x',
        {
          field: ['a=null', 'b=1.5', 'c=-2', 'd=12345678901234567890', 'e[]', 'g=text=more'],
          rawField: ['h=1'],
        },
        io,
      ),
    ).toEqual({
      Method: 'POST',
      Path: '/v2/x',
      Body: { h: '1', a: null, b: 1.5, c: -2, d: '12345678901234567890', e: [], g: 'text=more' },
    });
    for (const [fields, why] of [
      [['a=1', 'a=2'], '"a=2": a is given twice'],
      [['a[b]=1', 'a=2'], '"a=2": a is given twice'],
      [['a=1', 'a[b]=2'], '"a[b]=2": a is given as an object and as a value'],
      [['a=1', 'a[]=2'], '"a[]=2": a is given as an array and as a value'],
      [['a'], '"a" needs a value after "="'],
      [['[a]=1'], '"[a]=1" is not key=value'],
    ] as const) {
      await expect(apiCallArgs('/v2/x', { rawField: [...fields] }, io)).rejects.toThrow(why);
    }
    // `__proto__` is a name like any other: it pollutes nothing.
    const odd = await apiCallArgs('/v2/x', { rawField: ['__proto__[polluted]=yes'] }, io);
    expect(JSON.stringify(odd.Body)).toBe('{"__proto__":{"polluted":"yes"}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('-f text where the schema wants a boolean exits 2 naming the field, and sends nothing', async () => {
    const result = await api(['/v2/tags', '-F', 'name=5']);
    expect(result.code).toBe(EXIT.input);
    expect(result.stderr).toContain('cloudcall: invalid input: body field name: must be string');
    expect(result.requests).toEqual([]);
  });
});

describe('--input', () => {
  it('gives the whole body from a file or stdin; fields then go to the query', async () => {
    const file = join(cli.home, 'tag.json');
    writeFileSync(file, JSON.stringify({ name: 'from-file' }));
    const fromFile = await api(['/v2/tags', '--input', file]);
    expect(fromFile.code, fromFile.stderr).toBe(EXIT.ok);
    expect(fromFile.requests).toEqual(['POST /v2/tags']);
    expect(fromFile.json.tag.name).toBe('from-file');

    const fromStdin = await api(['/v2/tags', '--input', '-'], JSON.stringify({ name: 'from-stdin' }));
    expect(fromStdin.code, fromStdin.stderr).toBe(EXIT.ok);
    expect((await ok('tag-get', 'from-stdin')).tag.name).toBe('from-stdin');

    // No more than a file may hold: past it, refused before anything is sent.
    const flood = await api(['/v2/tags', '--input', '-'], ' '.repeat(8 * 1024 * 1024 + 1));
    expect(flood.code).toBe(EXIT.input);
    expect(flood.stderr).toContain('--input: stdin holds more than 8388608 bytes, the most a body takes');
    expect(flood.requests).toEqual([]);

    // A field beside --input is a query parameter, which tags_create does not take.
    const withField = await api(['/v2/tags', '--input', file, '-f', 'dry=1']);
    expect(withField.code).toBe(EXIT.input);
    expect(withField.stderr).toContain('query parameter dry: is not a parameter of tags_create');
    expect(withField.requests).toEqual([]);

    writeFileSync(file, '{"name": ');
    const broken = await api(['/v2/tags', '--input', file]);
    expect(broken.code).toBe(EXIT.input);
    expect(broken.stderr).toContain('--input: is not valid JSON');
    expect(broken.requests).toEqual([]);
  });
});

describe('--input FILE and -F name=@FILE', () => {
  it('refuse a FIFO, /dev/zero, a directory and a file over 8 MiB at once, sending nothing', async () => {
    const fifo = join(cli.home, 'body.fifo');
    execFileSync('mkfifo', [fifo]);
    const large = join(cli.home, 'large.json');
    writeFileSync(large, `{"name": "x"}${' '.repeat(8 * 1024 * 1024)}`);
    for (const [file, why] of [
      [fifo, 'not a regular file (a FIFO); give a file, or - for stdin'],
      ['/dev/zero', 'not a regular file (a device); give a file, or - for stdin'],
      [cli.home, 'not a regular file (a directory); give a file, or - for stdin'],
      [large, 'larger than 8 MiB'],
    ] as const) {
      const input = await api(['/v2/tags', '--input', file]);
      expect(input.code, file).toBe(EXIT.input);
      expect(input.stderr).toContain(`--input: cannot read ${file}: ${why}\n`);
      expect(input.requests).toEqual([]);
      const field = await api(['/v2/tags', '-F', `name=@${file}`]);
      expect(field.code, file).toBe(EXIT.input);
      expect(field.stderr).toContain(`-F: cannot read ${file}: ${why}\n`);
      expect(field.requests).toEqual([]);
    }
  }, 60_000);
});

describe('--paginate', () => {
  it('GETs every page of a list, following links.pages.next, and prints one answer', async () => {
    for (const name of ['page-a', 'page-b', 'page-c', 'page-d', 'page-e']) {
      expect((await api(['/v2/tags', '-f', `name=${name}`])).code).toBe(EXIT.ok);
    }
    const one = await api(['-X', 'GET', '/v2/tags', '-F', 'per_page=2']);
    expect(one.json.tags).toHaveLength(2);
    const total = one.json.meta.total as number;
    expect(total).toBeGreaterThanOrEqual(5);

    // No -X: --paginate goes with GET, and -F per_page is its query.
    const all = await api(['/v2/tags', '--paginate', '-F', 'per_page=2']);
    expect(all.code, all.stderr).toBe(EXIT.ok);
    expect(all.requests).toEqual(
      Array.from({ length: Math.ceil(total / 2) }, (_, at) => `GET /v2/tags?per_page=2&page=${at + 1}`),
    );
    expect(all.requests).toContain('GET /v2/tags?per_page=2&page=2');
    expect(all.json.tags).toHaveLength(total);
    expect(new Set(all.json.tags.map((tag: Json) => tag.name)).size).toBe(total);
    expect(all.json).toMatchObject({ links: {}, meta: { total } });
  });

  it('answers a GET without pages whole, and refuses another method', async () => {
    const account = await api(['/v2/account', '--paginate']);
    expect(account.code, account.stderr).toBe(EXIT.ok);
    expect(account.requests).toEqual(['GET /v2/account']);
    const post = await api(['-X', 'POST', '/v2/tags', '-f', 'name=x', '--paginate']);
    expect(post.code).toBe(EXIT.input);
    expect(post.stderr).toContain('--paginate: follows the pages of a list: it goes with GET, not POST');
    expect(post.requests).toEqual([]);
  });

  it('prints large answers whole, where the api-call tool cuts them', async () => {
    // 120 tags with long names: one page of them is over api-call's 32 KB.
    for (let at = 0; at < 120; at++) {
      const response = await fetch(`${sandbox.url}/v2/tags`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bulk-${String(at).padStart(3, '0')}-${'x'.repeat(200)}` }),
      });
      expect(response.status).toBe(201);
    }
    const whole = await api(['-X', 'GET', '/v2/tags', '-F', 'per_page=200']);
    expect(whole.code, whole.stderr).toBe(EXIT.ok);
    expect(whole.stdout.length).toBeGreaterThan(32_768);
    expect(whole.json.truncated).toBeUndefined();
    expect(whole.json.tags).toHaveLength(whole.json.meta.total);
    const cut = await ok('api-call', '--method', 'GET', '--path', '/v2/tags', '--query', '{"per_page":200}');
    expect(cut.truncated).toMatchObject({ field: 'tags', cap: 32_768 });
    expect(cut.tags.length).toBeLessThan(whole.json.tags.length);
  });
});

describe('the guard rails', () => {
  it('refuses a DELETE off a terminal without --force, sending nothing; with --force it deletes', async () => {
    await ok('tag-create', '--name', 'doomed');
    const refused = await api(['-X', 'DELETE', '/v2/tags/doomed']);
    expect(refused.code).toBe(EXIT.input);
    expect(refused.stderr).toContain('api-call is destructive: not on a terminal');
    expect(refused.stderr).toContain('add --force (or --yes)');
    expect(mutating(refused.requests)).toEqual([]);
    expect((await ok('tag-get', 'doomed')).tag.name).toBe('doomed');

    const forced = await api(['-X', 'DELETE', '/v2/tags/doomed', '--force']);
    expect(forced.code, forced.stderr).toBe(EXIT.ok);
    expect(mutating(forced.requests)).toEqual(['DELETE /v2/tags/doomed']);
    expect(forced.json).toEqual({ ok: true });
    const gone = await cli.run(['--api-url', sandbox.url, '-t', TOKEN, 'tag-get', 'doomed']);
    expect(gone.code).toBe(EXIT.api);
  });

  it('asks y/N on a terminal, naming the tag: "n" sends nothing, "y" deletes', async () => {
    await ok('tag-create', '--name', 'asked');
    const terminal = (keys: string) =>
      onTerminal(['--api-url', sandbox.url, '-t', TOKEN, 'api', '-X', 'DELETE', '/v2/tags/asked'], {
        env: { PATH: process.env.PATH ?? '', HOME: cli.home },
        prompt: '[y/N]',
        keys,
      });
    const from = seen.length;
    const declined = await terminal('n\n');
    expect(declined.text).toContain(
      'Call an API operation (api-call, DELETE /v2/tags/asked): tag asked? [y/N]',
    );
    expect(declined.code).toBe(EXIT.input);
    expect(mutating(seen.slice(from))).toEqual([]);
    const accepted = await terminal('y\n');
    expect(accepted.code, accepted.text).toBe(EXIT.ok);
    expect(mutating(seen.slice(from))).toEqual(['DELETE /v2/tags/asked']);
  });

  it('runs a POST that destroys nothing without --force', async () => {
    const result = await api(['-X', 'POST', '/v2/tags', '-f', 'name=no-force-needed']);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.requests).toEqual(['POST /v2/tags']);
  });

  it('refuses a DELETE of a protected resource even with --force, sending nothing', async () => {
    await ok('tag-create', '--name', 'keep-me');
    const result = await api(['-X', 'DELETE', '/v2/tags/keep-me', '--force', '--protect', 'name:keep-me']);
    expect(result.code).toBe(EXIT.input);
    expect(result.stderr).toContain(
      'api-call refused: tag keep-me is protected by rule name:keep-me (--protect). Nothing was sent.',
    );
    expect(mutating(result.requests)).toEqual([]);
    expect((await ok('tag-get', 'keep-me')).tag.name).toBe('keep-me');
  });

  it('--dry-run prints the plan (request, target, price) and sends nothing that changes anything', async () => {
    await ok('tag-create', '--name', 'planned');
    const remove = await api(['-X', 'DELETE', '/v2/tags/planned', '--dry-run', '--protect', 'tag:planned']);
    expect(remove.code, remove.stderr).toBe(EXIT.ok);
    expect(remove.json).toMatchObject({
      tool: 'api-call',
      destructive: true,
      valid: true,
      request: { method: 'DELETE', path: '/v2/tags/planned' },
      target: { kind: 'tag', name: 'planned' },
      refused_by: 'tag:planned (--protect)',
    });
    expect(mutating(remove.requests)).toEqual([]);

    const { sizes } = await ok('size-list', '--per-page', '200');
    const price = sizes.find((size: Json) => size.slug === 's-2vcpu-4gb').price_monthly as number;
    const create = await api([
      '/v2/droplets',
      ...['-f', 'name=planned-vm', '-f', 'size=s-2vcpu-4gb', '-f', 'region=nyc3', '-F', 'image=161928327'],
      '--dry-run',
    ]);
    expect(create.code, create.stderr).toBe(EXIT.ok);
    expect(create.json).toMatchObject({
      destructive: false,
      request: { method: 'POST', path: '/v2/droplets', body: { name: 'planned-vm', image: 161928327 } },
      price: { monthly_before: 0, monthly_after: price },
    });
    expect(mutating(create.requests)).toEqual([]);
    const vms = await ok('vm-list');
    expect(vms.droplets.map((vm: Json) => vm.name)).not.toContain('planned-vm');
  });
});

describe('checked before anything is sent', () => {
  it('refuses an unknown path, naming PATH', async () => {
    const result = await api(['/v2/nothing-here']);
    expect(result.code).toBe(EXIT.input);
    expect(result.stderr).toContain(
      "cloudcall: invalid input: PATH: /v2/nothing-here is no path of the platform's API",
    );
    expect(result.stderr).toContain('hint: cloudcall api --help lists its flags');
    expect(result.requests).toEqual([]);
  });

  it('refuses a body that breaks the schema, naming the field', async () => {
    const result = await api([
      '/v2/droplets',
      '-f',
      'name=bad',
      '-f',
      'size=s-1vcpu-1gb',
      '-f',
      'region=nyc3',
    ]);
    expect(result.code).toBe(EXIT.input);
    expect(result.stderr).toContain("the body: must have required property 'image'");
    expect(result.requests).toEqual([]);
    const typed = await api([
      '/v2/droplets',
      '-f',
      'name=bad',
      '-f',
      'size=s-1vcpu-1gb',
      '-f',
      'image=x',
      '-f',
      'monitoring=true',
    ]);
    expect(typed.code).toBe(EXIT.input);
    expect(typed.stderr).toContain('body field monitoring: must be boolean');
    expect(typed.requests).toEqual([]);
  });

  it('refuses a method the path does not take, and says why the method was POST when not given', async () => {
    const put = await api(['-X', 'PUT', '/v2/account']);
    expect(put.code).toBe(EXIT.input);
    expect(put.stderr).toContain('-X/--method: /v2/account takes GET, not PUT');
    expect(put.requests).toEqual([]);
    const implied = await api(['/v2/account', '-f', 'x=1']);
    expect(implied.code).toBe(EXIT.input);
    expect(implied.stderr).toContain(
      '-X/--method (not given, so POST: fields or --input make a body): /v2/account takes GET, not POST',
    );
    const meantGet = await api(['/v2/images', '-F', 'per_page=5']);
    expect(meantGet.code).toBe(EXIT.input);
    expect(meantGet.stderr).toContain(
      'the method is POST as fields or --input were given (-X GET sends fields as the query)',
    );
    expect(meantGet.requests).toEqual([]);
  });

  it('refuses a query parameter the operation does not take, and one that is an object', async () => {
    const unknown = await api(['/v2/account?colour=blue']);
    expect(unknown.code).toBe(EXIT.input);
    expect(unknown.stderr).toContain('query parameter colour: is not a parameter of account_get');
    const nested = await api(['/v2/tags', '-X', 'GET', '-f', 'page[x]=1']);
    expect(nested.code).toBe(EXIT.input);
    expect(nested.stderr).toContain('query parameter page: is an object');
    expect([...unknown.requests, ...nested.requests]).toEqual([]);
  });
});

describe('the api family and the api command', () => {
  it('finds and describes operations with no token and no sandbox: they talk to no API', async () => {
    const found = await cli.run(['api-search', '--text', 'kubernetes node pool', '--limit', '2']);
    expect(found.code, found.stderr).toBe(EXIT.ok);
    expect((found.json as Json).operations.map((hit: Json) => hit.operationId)).toEqual([
      expect.stringMatching(/^kubernetes_/),
      expect.stringMatching(/^kubernetes_/),
    ]);
    const described = await cli.run(['api', 'describe', '--operation', 'POST /v2/droplets']);
    expect(described.code, described.stderr).toBe(EXIT.ok);
    expect(described.json).toMatchObject({ operationId: 'droplets_create', destructive: false });
    // api-call still needs a token: it calls the API.
    const call = await cli.run(['api-call', '--method', 'GET', '--path', '/v2/account']);
    expect(call.code).toBe(EXIT.input);
    expect(call.stderr).toContain('no API token');
  });

  it('api-search, api-describe and api-call run as commands, also as "api search|describe|call"', async () => {
    const found = await ok('api-search', '--text', 'vm snapshot');
    expect(found.operations.map((hit: Json) => hit.operationId)).toContain('droplets_list_snapshots');
    const joined = await ok('api', 'search', '--text', 'vm snapshot', '--limit', '1');
    expect(joined.operations).toHaveLength(1);
    const described = await ok('api', 'describe', '--operation', 'tags_create');
    expect(described).toMatchObject({ operationId: 'tags_create', method: 'POST', path: '/v2/tags' });
    // The Body flag takes JSON (an object or an array), and refuses what is not JSON.
    const called = await ok(
      'api-call',
      '--method',
      'POST',
      '--path',
      '/v2/tags',
      '--body',
      '{"name":"via-tool"}',
    );
    expect(called.tag.name).toBe('via-tool');
    // After the tool name --query is api-call's Query; cloudcall's JMESPath --query goes before it.
    const both = await cli.run([
      ...['--api-url', sandbox.url, '-t', TOKEN, '--query', 'tags[].name'],
      ...['api-call', '--method', 'GET', '--path', '/v2/tags', '--query', '{"per_page":1}'],
    ]);
    expect(both.code, both.stderr).toBe(EXIT.ok);
    expect(both.json).toEqual([expect.any(String)]);
    const notJson = await cli.run([
      '--api-url',
      sandbox.url,
      '-t',
      TOKEN,
      'api',
      'call',
      '--method',
      'POST',
      '--path',
      '/v2/tags',
      '--body',
      'name=x',
    ]);
    expect(notJson.code).toBe(EXIT.input);
    expect(notJson.stderr).toContain('--body: expected JSON');
  });

  it('has help with the flags and examples, is in the root help and the api family, and completes', async () => {
    const help = await cli.run(['api', '--help']);
    expect(help.code).toBe(EXIT.ok);
    for (const text of [
      '-X, --method <method>',
      '-f, --raw-field <key=value>',
      '-F, --field <key=value>',
      '--input <file>',
      '--paginate',
      '--dry-run',
      'Examples:',
      'cloudcall api /v2/account',
    ]) {
      expect(help.stdout).toContain(text);
    }
    // -f is a field here; --force has no short form.
    expect(help.stdout).not.toMatch(/-f, --force/);
    expect((await cli.run(['--help'])).stdout).toContain('Also: cloudcall api PATH');
    const family = await cli.run(['help', 'api']);
    expect(family.stdout).toMatch(/api-search +Search API operations/);
    expect(family.stdout).toContain('Also the command "cloudcall api"');
    const bare = await cli.run(['api']);
    expect(bare.code).toBe(EXIT.input);
    expect(bare.stderr).toContain("missing required argument 'path'");

    const complete = async (...words: string[]) =>
      (await cli.run(['__complete', ...words])).stdout.split('\n');
    expect(await complete('api', '')).toEqual(expect.arrayContaining(['search', 'describe', 'call']));
    expect((await complete('api', '/v2/tags', '--pa')).filter((word) => word.startsWith('--pa'))).toEqual([
      '--paginate',
    ]);
    expect(await complete('api', '/v2/tags', '-o', '')).toContain('yaml');
    expect((await complete('api', 'search', '--te')).filter((word) => word.startsWith('--te'))).toEqual([
      '--text',
    ]);
  });
});
