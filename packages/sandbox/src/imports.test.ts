/**
 * The sandbox's modules import one another in one direction only: no cycle, type-only imports
 * included (a type cycle still ties the modules together, and becomes a runtime cycle as soon as
 * a value is imported along it).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** Every non-test module of src, with the src modules it imports (by path relative to src). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
  );
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(SRC, file), 'utf8'), true, true);
    const local = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(SRC, resolve(SRC, dirname(file), name.replace(/\.js$/, '.ts'))));
    graph.set(file, local);
  }
  return graph;
}

/** The import cycles of a graph, each as the list of modules along it. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('module imports', () => {
  it('finds the modules and their imports', () => {
    const graph = importGraph();
    expect(graph.get('respond.ts')).toEqual(expect.arrayContaining(['http.ts', 'world.ts']));
    expect(graph.get('server.ts')).toContain('respond.ts');
    expect(graph.get('http.ts')).toContain('world.ts');
    // The detector finds a cycle when there is one.
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c', 'a']]);
  });

  it('has no import cycle, type-only imports included', () => {
    expect(cyclesOf(importGraph()).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });
});
