/**
 * Argument schemas for the spec's conventions, shared by every family: "integer as string" and
 * "bool as string" arguments, pages, and comma-separated lists. Each accepts what a caller
 * reasonably sends (text or a JSON number/boolean) and hands the request builder one form.
 */
import { z } from 'zod';

/** "integer as string": text holding an integer, or a JSON integer. Comes out as a number. */
export function intAsString(description: string) {
  return z
    .union([z.string().regex(/^\s*-?\d+\s*$/, 'expected an integer, such as "2"'), z.number().int()])
    .transform((value) => (typeof value === 'number' ? value : Number.parseInt(value, 10)))
    .describe(description);
}

/** "bool as string": "true"/"false" text, or a JSON boolean. Comes out as a boolean. */
export function boolAsString(description: string) {
  return z
    .union([z.enum(['true', 'false']), z.boolean()])
    .transform((value) => value === true || value === 'true')
    .describe(description);
}

/** A comma-separated list in (as the spec types it), an array of trimmed, non-empty items out. */
export function commaList(description: string) {
  return z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    )
    .describe(description);
}

/** `Page`/`PerPage` with the spec's defaults for a family (Limits table). */
export function pageArgs(perPageDefault: number) {
  return {
    Page: z.number().int().min(1).default(1).describe('Page number, from 1.'),
    PerPage: z
      .number()
      .int()
      .min(1)
      .max(200)
      .default(perPageDefault)
      .describe(`Items per page (default ${perPageDefault}, at most 200).`),
  };
}

/** The query of a paged list: `page`/`per_page` on the wire from `Page`/`PerPage` (see pageArgs). */
export const pageQuery = { page: 'Page', per_page: 'PerPage' } as const;

/** A positive numeric platform id, described with where a caller finds it. */
export function numericId(description: string) {
  return z.number().int().positive().describe(description);
}
