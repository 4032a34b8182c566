/**
 * App Platform through the CLI against its sandbox, whose state persists between invocations, in
 * doctl's words: `apps create --spec app.yaml --wait` (the app named in the progress line),
 * `apps list` and `apps list-deployments` as doctl's tables, apps named where ids are expected,
 * `apps update APP --spec`, `apps create-deployment`, the log URLs, `apps spec validate`, a spec
 * refused before anything is sent naming the bad field, and `apps delete` confirmed, forced, or
 * refused by a protection rule with nothing sent.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner, type Json, sandboxBeside } from './testing/run.js';

const cli = cliRunner();
const { ok } = cli;
/** A second sandbox on the CLI's state file, to move its clock. */
const helper = sandboxBeside(cli);
const files = mkdtempSync(join(tmpdir(), 'cloudcall-cli-apps-'));

/** A spec file written as a person writes one: YAML, with a comment. */
function specFile(name: string, instances = 1, file = `${name}.yaml`): string {
  const path = join(files, file);
  writeFileSync(
    path,
    [
      '# .do/app.yaml',
      `name: ${name}`,
      'region: ams',
      'services:',
      '  - name: web',
      '    github:',
      '      repo: acme/shop',
      '      branch: main',
      '    http_port: 8080',
      `    instance_count: ${instances}`,
      '    instance_size_slug: apps-s-1vcpu-1gb',
      '',
    ].join('\n'),
  );
  return path;
}

/**
 * A command with `--wait`, expecting exit 0: once it says what it waits for (the app by name),
 * the sandbox clock moves on. The JSON printed.
 */
async function okWaiting(app: string, ...args: string[]): Promise<Json> {
  const run = cli.start(['--sandbox', ...args]);
  await run.until(new RegExp(`: app ${app} deployment [0-9a-f]{8}: \\w+ \\(`));
  await helper().advanceClock(60_000);
  const result = await run.exit;
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.json;
}

describe('apps through the CLI, in doctl words', () => {
  it('create --spec --wait, list, get by name, update, create-deployment, logs, delete', async () => {
    const live = await okWaiting('shop', 'apps', 'create', '--spec', specFile('shop'), '--wait');
    expect(live.deployment).toMatchObject({ phase: 'ACTIVE', cause: 'app created' });

    const { app } = await ok('apps', 'get', 'shop');
    expect(app).toMatchObject({ spec: { name: 'shop' }, active_deployment: { phase: 'ACTIVE' } });

    // doctl's columns.
    const table = await cli.sandbox('apps', 'list', '-o', 'table');
    expect(table.code, table.stderr).toBe(0);
    const [header, row] = table.stdout.split('\n');
    expect(header?.split(/\s{2,}/)).toEqual([
      'ID',
      'Spec Name',
      'Default Ingress',
      'Active Deployment ID',
      'In Progress Deployment ID',
      'Created At',
      'Updated At',
    ]);
    expect(row).toContain(app.id);
    expect(row).toContain(app.active_deployment.id);
    expect(row).toMatch(/https:\/\/shop-[a-z]{5}\.ondigitalocean\.app/);

    const updated = await okWaiting(
      'shop',
      'apps',
      'update',
      'shop',
      '--spec',
      specFile('shop', 2),
      '--force',
      '--wait',
    );
    expect(updated.deployment).toMatchObject({ phase: 'ACTIVE', cause: 'app spec updated' });
    expect((await ok('apps', 'get', app.id)).app.spec.services[0].instance_count).toBe(2);

    const deployed = await okWaiting(
      'shop',
      'apps',
      'create-deployment',
      'shop',
      '--force-rebuild',
      '--wait',
    );
    expect(deployed.deployment).toMatchObject({ phase: 'ACTIVE', cause: 'manual (forced rebuild)' });

    const deployments = await cli.sandbox('apps', 'list-deployments', 'shop', '-o', 'table');
    expect(deployments.code, deployments.stderr).toBe(0);
    const lines = deployments.stdout.trim().split('\n');
    expect(lines[0]?.split(/\s{2,}/)).toEqual([
      'ID',
      'Cause',
      'Progress',
      'Phase',
      'Created At',
      'Updated At',
    ]);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/)[3])).toEqual([
      'ACTIVE',
      'SUPERSEDED',
      'SUPERSEDED',
    ]);
    expect(lines[1]).toMatch(/ (\d+)\/\1 /);
    const got = await ok('apps', 'get-deployment', 'shop', deployed.deployment.id);
    expect(got.deployment.id).toBe(deployed.deployment.id);

    // Log URLs (the tool's answer; `apps logs` reads them: app-logs.test.ts): of the build of a
    // past deployment (archived), of the live one's run.
    const build = await ok('app-get-logs', 'shop', '--deployment', deployed.deployment.id, '--type', 'build');
    expect(build.historic_urls[0]).toMatch(/\/archive\/build\.log\?token=/);
    const run = await ok('app-get-logs', 'shop', '--component', 'web');
    expect(run.live_url).toMatch(/\/live\?type=RUN&component=web&token=/);

    // Destructive: refused without --force when no one can be asked, and nothing changes.
    const unconfirmed = await cli.sandbox('apps', 'delete', 'shop');
    expect(unconfirmed.code).not.toBe(0);
    expect(unconfirmed.stderr).toContain('app-delete is destructive');
    await ok('apps', 'get', 'shop');
    expect(await ok('apps', 'delete', 'shop', '--force')).toEqual({ id: app.id });
    const gone = await cli.sandbox('apps', 'get', app.id);
    expect(gone.code).not.toBe(0);
  });

  it('a protected app is refused, even with --force, nothing sent', async () => {
    await ok('apps', 'create', '--spec', specFile('keep-me'));
    const refused = await cli.sandbox('apps', 'delete', 'keep-me', '--force', '--protect', 'name:keep-me');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/app-delete refused: app keep-me .*is protected by rule name:keep-me/);
    const update = await cli.sandbox(
      'apps',
      'update',
      'keep-me',
      '--spec',
      specFile('keep-me', 2),
      '--force',
      '--protect',
      'name:keep-me',
    );
    expect(update.code).not.toBe(0);
    expect(update.stderr).toContain('is protected by rule name:keep-me');
    const { app } = await ok('apps', 'get', 'keep-me');
    expect(app.spec.services[0].instance_count).toBe(1);
    await ok('apps', 'delete', app.id, '--force');
  });

  it('a bad spec is refused before anything is sent, naming the field; spec validate asks the platform', async () => {
    const before = await cli.stateText();
    const bad = join(files, 'bad.yaml');
    writeFileSync(bad, 'name: Bad_Name\nservices:\n  - name: web\n    instance_count: 0\n');
    const refused = await cli.sandbox('apps', 'create', '--spec', bad);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--spec \(at name\): the app name must be 2 to 32 lowercase letters/);
    expect(refused.stderr).toMatch(/--spec \(at services\.0\.instance_count\): Too small/);
    const notYaml = join(files, 'not.yaml');
    writeFileSync(notYaml, 'name: [unclosed\n');
    const unreadable = await cli.sandbox('apps', 'create', '--spec', notYaml);
    expect(unreadable.code).not.toBe(0);
    expect(unreadable.stderr).toContain('is not YAML or JSON');
    const missing = await cli.sandbox('apps', 'create', '--spec', join(files, 'nowhere.yaml'));
    expect(missing.stderr).toContain('does not exist');
    expect(await cli.stateText()).toBe(before);

    // The platform's own check: a region it does not run in passes the shape, not the platform.
    const proposal = await ok('apps', 'spec', 'validate', '--spec', specFile('valid'));
    expect(proposal).toMatchObject({ app_name_available: true, app_is_static: false });
    const elsewhere = join(files, 'elsewhere.json');
    writeFileSync(
      elsewhere,
      JSON.stringify({
        name: 'far',
        region: 'xyz',
        static_sites: [{ name: 'site', github: { repo: 'a/b' } }],
      }),
    );
    const invalid = await cli.sandbox('apps', 'spec', 'validate', '--spec', elsewhere);
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toContain('App Platform does not run in "xyz"');
  });

  it('reads the spec from standard input with --spec -', async () => {
    const piped = cliRunner({}, { process: true });
    const spec = JSON.stringify({
      name: 'piped',
      services: [{ name: 'api', image: { registry_type: 'DOCR', repository: 'api' } }],
    });
    const made = await piped.run(['--sandbox', 'apps', 'create', '--spec', '-'], {}, spec);
    expect(made.code, made.stderr).toBe(0);
    expect((made.json as Json).app.spec.name).toBe('piped');
  });
});
