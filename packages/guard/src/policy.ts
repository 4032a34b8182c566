/**
 * The protection policy: rules that name resources no tool may change, by tag, name or id, and
 * the tools a policy allows on them all the same (`allow:vm-reboot`). Rules come from flags
 * (`--protect tag:prod`) and from a JSON policy file; both apps read them with the same code and
 * match them against the targets the guard reads before each mutating request.
 */
import { FileReadError, globPattern, readBoundedFile, showControls } from '@cloudcall/core/internal';
import { findNodeAtLocation, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { z } from 'zod';
import type { Target } from './target.js';

/** `allow` names a tool that protection lets through; the others name resources it protects. */
export type RuleKind = 'tag' | 'name' | 'id' | 'allow';

export interface ProtectRule {
  kind: RuleKind;
  /** What the rule names; `name:` values may use `*` and `?` as globs; `allow:` names a tool. */
  value: string;
  /** Where the rule came from (`--protect`, or the policy file and line), for refusal messages. */
  source: string;
}

const RULE_TEXT = /^(tag|name|id|allow):(.+)$/;
const PROTECT_TEXT = /^(tag|name|id):(.+)$/;
/** A tool name, as the catalog spells them: lowercase words joined by `-`. */
const TOOL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * A rule that holds a comma is two rules written as one (`tag:prod,name:db`): taken as one, it
 * would name a tag no resource has and protect nothing, silently. No tag, name or id cloudcall
 * protects has a comma (a name that does can be matched with `?`).
 */
function twoRules(text: string): string {
  return `one rule per entry: ${JSON.stringify(text)} names two (split it at the comma)`;
}

/** `tag:prod` or `allow:vm-reboot` -> a rule; throws an Error saying what a rule looks like. */
export function parseRule(text: string, source: string): ProtectRule {
  if (text.includes(',')) throw new Error(`${source}: ${twoRules(text.trim())}`);
  const match = RULE_TEXT.exec(text.trim());
  if (!match) {
    throw new Error(
      `${source}: ${JSON.stringify(text)} is not a rule; write tag:NAME, name:NAME, id:ID or allow:TOOL`,
    );
  }
  const rule = { kind: match[1] as RuleKind, value: (match[2] as string).trim(), source };
  if (rule.kind === 'allow' && !TOOL_NAME.test(rule.value)) {
    throw new Error(`${source}: ${JSON.stringify(text)}: allow: takes a tool name, such as allow:vm-reboot`);
  }
  return rule;
}

/**
 * What a policy file holds: `{ "protect": ["tag:prod", "name:db-main", "id:1234"],
 * "allow": ["vm-reboot"] }`.
 */
export const PolicyFile = z.strictObject({
  protect: z
    .array(
      z
        .string()
        .regex(PROTECT_TEXT, 'must be tag:NAME, name:NAME or id:ID')
        .refine((rule) => !rule.includes(','), { error: (issue) => twoRules(String(issue.input)) })
        .describe('A protected resource: tag:NAME, name:NAME (globs allowed) or id:ID'),
    )
    .describe('Resources no tool may change'),
  allow: z
    .array(z.string().regex(TOOL_NAME, 'must be a tool name, such as vm-reboot'))
    .optional()
    .describe('Tools allowed on protected resources all the same, such as vm-reboot'),
});

/** A policy file that cannot be used: says which file, which line, and what is wrong. */
export class PolicyError extends Error {
  override name = 'PolicyError';
}

/**
 * The protection rules of either app: each `--protect` value and `CLOUDCALL_PROTECT` is a rule
 * or a comma-separated list of them, and a policy file's rules follow. Throws an Error naming the
 * bad rule and where it came from, or a PolicyError naming the file, line and problem.
 */
export function protectionRules(given: {
  flags?: readonly string[] | undefined;
  env?: string | undefined;
  policy?: string | undefined;
}): ProtectRule[] {
  const list = (values: readonly string[]) =>
    values.flatMap((value) => value.split(',')).filter((rule) => rule.trim());
  return [
    ...list(given.flags ?? []).map((rule) => parseRule(rule, '--protect')),
    ...list(given.env ? [given.env] : []).map((rule) => parseRule(rule, 'CLOUDCALL_PROTECT')),
    ...(given.policy ? loadPolicy(given.policy) : []),
  ];
}

/** The largest policy file read: a policy of 10,000 rules is about 300 KiB. */
export const POLICY_MAX_BYTES = 1024 * 1024;

/**
 * Reads and validates a policy file; throws a PolicyError naming the file, line and problem. Only
 * a regular file of at most POLICY_MAX_BYTES is read: a FIFO, a device or a directory is refused
 * before a byte is read (opened without blocking, so a FIFO with no writer cannot hang the start).
 */
export function loadPolicy(path: string): ProtectRule[] {
  let text: string;
  try {
    text = readBoundedFile(path, POLICY_MAX_BYTES);
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    const advice = {
      unreadable: '',
      'not-a-file': '; give a JSON file',
      'too-large': ', the most a policy file may hold',
    }[error.reason];
    throw new PolicyError(`policy file ${path}: ${error.message}${advice}`);
  }
  return parsePolicy(text, path);
}

/** Validates the text of a policy file named `path` (for messages). */
export function parsePolicy(text: string, path: string): ProtectRule[] {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  if (first || !tree) {
    const offset = first?.offset ?? 0;
    const problem = first ? printParseErrorCode(first.error) : 'EmptyFile';
    throw new PolicyError(`policy file ${path}, line ${lineAt(text, offset)}: not valid JSON (${problem})`);
  }
  const value = JSON.parse(text) as unknown;
  const parsed = PolicyFile.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    const node = findNodeAtLocation(tree, issue.path as (string | number)[]) ?? tree;
    const where = issue.path.length ? ` at ${issue.path.join('.')}` : '';
    const detail =
      issue.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((key) => JSON.stringify(key)).join(', ')} (only "protect" and "allow" are allowed)`
        : issue.message.replace(/^Invalid input: /, '');
    const line =
      issue.code === 'unrecognized_keys'
        ? keyLine(text, tree, issue.keys[0] as string)
        : lineAt(text, node.offset);
    throw new PolicyError(`policy file ${path}, line ${line}${where}: ${detail}`);
  }
  // One index of line starts for every rule: finding each rule's line from the top of the text
  // made validation quadratic (10,000 rules took seconds at every start).
  const lines = lineIndex(text);
  const where = (key: string, index: number) =>
    `policy file ${path}, line ${lines(findNodeAtLocation(tree, [key, index])?.offset ?? 0)}`;
  return [
    ...parsed.data.protect.map((rule, index) => parseRule(rule, where('protect', index))),
    ...(parsed.data.allow ?? []).map((tool, index) => parseRule(`allow:${tool}`, where('allow', index))),
  ];
}

function keyLine(text: string, tree: NonNullable<ReturnType<typeof parseTree>>, key: string): number {
  const property = tree.children?.find((child) => child.children?.[0]?.value === key);
  return lineAt(text, property?.offset ?? tree.offset);
}

function lineAt(text: string, offset: number): number {
  return lineIndex(text)(offset);
}

/** offset -> line number (from 1), by binary search over where each line starts. */
function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1))
    starts.push(index + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
}

/**
 * The first rule that protects `target` from `tool`, or undefined: none when an `allow:` rule
 * names the tool, or when no rule names the target or one of its members.
 */
export function protectingRule(
  rules: readonly ProtectRule[],
  target: Target,
  tool?: string,
): ProtectRule | undefined {
  if (tool !== undefined && rules.some((rule) => rule.kind === 'allow' && rule.value === tool)) {
    return undefined;
  }
  const resources = [target, ...(target.members ?? [])];
  return rules.find((rule) =>
    resources.some((resource) => {
      if (rule.kind === 'allow') return false;
      if (rule.kind === 'tag') return resource.tags?.includes(rule.value) ?? false;
      if (rule.kind === 'name') {
        const pattern = globPattern(rule.value);
        return [resource.name, ...(resource.aliases ?? [])].some(
          (name) => name !== undefined && pattern.test(name),
        );
      }
      return resource.id !== undefined && String(resource.id) === rule.value;
    }),
  );
}

/** Whether any rule protects anything (`allow:` rules alone protect nothing). */
export function protectsAnything(rules: readonly ProtectRule[]): boolean {
  return rules.some((rule) => rule.kind !== 'allow');
}

/** `tag:prod (from --protect)` as a refusal names a rule (its control characters shown escaped). */
export function describeRule(rule: ProtectRule): string {
  return showControls(`${rule.kind}:${rule.value} (${rule.source})`);
}
