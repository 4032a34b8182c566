/**
 * TSV keeps one record to a line and one value to a field whatever the values hold: a tab, a
 * carriage return or a line feed inside a value is shown as a space, so `cut`, `awk` and `while
 * read` split it where the CLI meant. Through the CLI's output path (runCli against the sandbox),
 * in each of its shapes: chosen columns, automatic columns, one record's field lines, a list of
 * plain values and one plain value.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cliRunner, type Json } from './testing/run.js';

const cli = cliRunner();
const at = ['--sandbox', '--sandbox-state', cli.statePath];

const NAME = 'tab\there';
const PURPOSE = 'Web\t\tApp';
// A line feed, a lone carriage return, a CRLF followed by a tab.
const DESCRIPTION = 'one\ntwo\rthree\r\n\tend';
const SHOWN = { name: 'tab here', purpose: 'Web App', description: 'one two three end' };

/** The project made here, picked out of any list: the only one that is not the default. */
const MINE = 'projects[?!is_default]';

let project: Json;
beforeAll(async () => {
  const created = await cli.run([
    ...at,
    ...['project-create', '--name', NAME, '--purpose', PURPOSE, '--description', DESCRIPTION],
  ]);
  expect(created.code, created.stderr).toBe(0);
  project = (created.json as Json).project;
  // The values reach the platform as given: only their TSV display changes.
  expect(project).toMatchObject({ name: NAME, purpose: PURPOSE, description: DESCRIPTION });
});

async function tsv(...args: string[]): Promise<string[][]> {
  const run = await cli.run([...at, ...args, '-o', 'tsv']);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout.endsWith('\n')).toBe(true);
  expect(run.stdout).not.toContain('\r');
  return run.stdout
    .slice(0, -1)
    .split('\n')
    .map((line) => line.split('\t'));
}

describe('tsv with tabs and line breaks inside values', () => {
  it('chosen columns: one line per record, one field per column', async () => {
    const rows = await tsv('project-list', '--format', 'id,name,purpose,description');
    expect(rows[0]).toEqual(['ID', 'Name', 'Purpose', 'Description']);
    expect(rows.every((row) => row.length === 4)).toBe(true);
    expect(rows.filter((row) => row[0] === project.id)).toEqual([
      [project.id, SHOWN.name, SHOWN.purpose, SHOWN.description],
    ]);
    // The other project (the account's default) keeps its own line.
    expect(rows).toHaveLength(3);
  });

  it('automatic columns of records with no table of their own', async () => {
    const rows = await tsv('project-list', '--query', MINE, '--no-header');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain(SHOWN.name);
    expect(rows[0]).toContain(SHOWN.purpose);
    expect(rows[0]).toContain(SHOWN.description);
    const header = await tsv('project-list', '--query', MINE);
    expect(header).toHaveLength(2);
    expect(header[1]).toHaveLength(header[0]?.length ?? -1);
  });

  it("one record's field lines: a name and its value on each", async () => {
    const lines = await tsv('project-list', '--query', `${MINE} | [0]`);
    expect(lines.every((line) => line.length === 2)).toBe(true);
    expect(lines).toContainEqual(['name', SHOWN.name]);
    expect(lines).toContainEqual(['purpose', SHOWN.purpose]);
    expect(lines).toContainEqual(['description', SHOWN.description]);
    expect(lines.length).toBe(Object.keys(project).length);
  });

  it('the same record as a command answers it', async () => {
    const lines = await tsv('project-get', project.id);
    const width = lines[0]?.length;
    expect(lines.every((line) => line.length === width)).toBe(true);
    expect(lines.flat()).toContain(SHOWN.description);
  });

  it('a list of plain values, and one plain value', async () => {
    expect(await tsv('project-list', '--query', `${MINE}[].[name, description]`)).toEqual([
      [`${SHOWN.name},${SHOWN.description}`],
    ]);
    expect(await tsv('project-list', '--query', `${MINE}[].description`)).toEqual([[SHOWN.description]]);
    expect(await tsv('project-list', '--query', `${MINE} | [0].purpose`)).toEqual([[SHOWN.purpose]]);
  });
});
