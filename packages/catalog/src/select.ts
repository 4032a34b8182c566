/**
 * Which tools a server or CLI offers: the families chosen (`--families`), then `--tools` (names and globs), then
 * `--exclude-tools`, then `--read-only` (which offers a tool's read-only form in its place, when it
 * has one). Every tool left out keeps the reason, named by the flag that left it out, so that a
 * call to it can say how to get it back. A leaf module
 * (`@cloudcall/catalog/select`): it loads no tool definitions, so an app can select from its
 * build-time listing without loading them.
 */

import type { FamilyName, ToolAnnotations } from '@cloudcall/core';
import { closest, globPattern } from '@cloudcall/core/internal';

// Where the apps have always found them; they live in core, which the guard shares.
export { closest, globPattern };

/** What selection reads of a tool: a definition, or its listing data. */
export interface SelectableTool {
  name: string;
  family: FamilyName;
  annotations: ToolAnnotations;
  /** The tool as `--read-only` offers it, in its place (same name, only reads), when it has one. */
  readOnlyForm?: SelectableTool | undefined;
}

export interface ToolSelection {
  /** Families to offer; all when absent. */
  families?: readonly FamilyName[];
  /** Whether `families` are the default ones (no --families given): how a hidden tool's reason reads. */
  defaultFamilies?: boolean;
  /** Only tools whose `readOnlyHint` is true, or their read-only forms. */
  readOnly?: boolean;
  /** Names and globs (`vm-*`, `db-cluster-get-*`) of the tools to offer; all when absent. */
  include?: readonly string[];
  /** Names and globs of tools not to offer, applied after `include`. */
  exclude?: readonly string[];
}

export interface SelectedTools<T extends SelectableTool = SelectableTool> {
  tools: T[];
  /** Tool name -> why it is not offered, naming the flag (`hidden by --read-only`). */
  hidden: Map<string, string>;
}

/** How each flag is also spelled in the environment; used in the reasons given. */
export const SELECTION_ENV = {
  families: 'CLOUDCALL_FAMILIES',
  readOnly: 'CLOUDCALL_READ_ONLY',
  include: 'CLOUDCALL_TOOLS',
  exclude: 'CLOUDCALL_EXCLUDE_TOOLS',
} as const;

/**
 * The families named in a comma-separated list such as `account,vms`, out of `known`: `all` for
 * every one; when the list is empty or absent, those listed by default (every family not marked
 * `onRequest`). Throws an Error naming unknown families and the valid ones.
 */
export function chooseFamilies<F extends { name: string; onRequest?: true | undefined }>(
  list: string | undefined,
  known: readonly F[],
): F[] {
  const names = (list ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) return known.filter((family) => !family.onRequest);
  if (names.includes('all')) return [...known];
  const unknown = names.filter((name) => !known.some((family) => family.name === name));
  if (unknown.length) {
    throw new Error(
      `unknown famil${unknown.length > 1 ? 'ies' : 'y'} ${unknown.join(', ')}; choose from ${known.map((family) => family.name).join(', ')} or all`,
    );
  }
  return known.filter((family) => names.includes(family.name));
}

/** Splits a comma- or space-separated list of names and globs. */
export function parseToolList(list: string): string[] {
  return list
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
}

/**
 * Applies a selection to a tool list. Throws an Error naming each name or glob that matches no
 * tool (with the closest names), since a typo would otherwise silently serve the wrong set.
 */
export function selectTools<T extends SelectableTool & { readOnlyForm?: T | undefined }>(
  tools: readonly T[],
  selection: ToolSelection = {},
): SelectedTools<T> {
  const names = tools.map((tool) => tool.name);
  const matcher = (flag: string, patterns: readonly string[] | undefined) => {
    if (!patterns?.length) return undefined;
    const compiled = patterns.map((pattern) => ({ pattern, regexp: globPattern(pattern) }));
    const unmatched = compiled.filter(({ regexp }) => !names.some((name) => regexp.test(name)));
    if (unmatched.length) {
      throw new Error(
        unmatched
          .map(({ pattern }) => {
            const near = closest(pattern, names);
            return `${flag}: ${pattern} matches no tool${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}`;
          })
          .join('; '),
      );
    }
    return (name: string) => compiled.some(({ regexp }) => regexp.test(name));
  };
  const included = matcher('--tools', selection.include);
  const excluded = matcher('--exclude-tools', selection.exclude);

  const offered: T[] = [];
  const hidden = new Map<string, string>();
  for (const tool of tools) {
    if (selection.families && !selection.families.includes(tool.family)) {
      hidden.set(
        tool.name,
        selection.defaultFamilies
          ? `its family, ${tool.family}, is offered on request: add it to --families (${SELECTION_ENV.families}), or give --families all`
          : `its family, ${tool.family}, is not in --families (${SELECTION_ENV.families})`,
      );
    } else if (included && !included(tool.name)) {
      hidden.set(tool.name, `not in --tools (${SELECTION_ENV.include})`);
    } else if (excluded?.(tool.name)) {
      hidden.set(tool.name, `hidden by --exclude-tools (${SELECTION_ENV.exclude})`);
    } else if (selection.readOnly && !tool.annotations.readOnlyHint && tool.readOnlyForm) {
      offered.push(tool.readOnlyForm);
    } else if (selection.readOnly && !tool.annotations.readOnlyHint) {
      hidden.set(tool.name, `hidden by --read-only (${SELECTION_ENV.readOnly}): it changes resources`);
    } else {
      offered.push(tool);
    }
  }
  return { tools: offered, hidden };
}
