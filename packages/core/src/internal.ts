/**
 * @cloudcall/core/internal: the helpers the cloudcall packages share (argument schemas for the
 * family tables, request building, listing, retries, secrets, traces, name matching). Not covered
 * by semver: any release may change or remove them. The cloudcall packages depend on matching
 * versions of core; a library user imports `@cloudcall/core` (and `@cloudcall/core/credentials`).
 */
export {
  boolAsString,
  commaList,
  intAsString,
  LIMITS,
  numericId,
  pageArgs,
  pageQuery,
  REGION_SLUG,
  regionSlug,
  slug,
  tagName,
  text,
  UUID_PATTERN,
  uuid,
} from './args.js';
export { readBody } from './body.js';
export { durationMs } from './duration.js';
export { describeError, redact } from './errors.js';
export { FileReadError, readBoundedFile } from './file.js';
export { listedAnnotations, listingSchema, shapeOf } from './listing.js';
export { closest, editDistance, globPattern } from './names.js';
export { followPages, pageArgument, perPageArgument, runAllPages } from './pagination.js';
export { LOW_RATE_LIMIT_SHARE, rateLimitFromHeaders, rateLimitLow, rateLimitSpacing } from './rate-limit.js';
export { type ErrorReport, errorReport } from './report.js';
export {
  backoffDelay,
  defaultRetryOptions,
  IDEMPOTENT_METHODS,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  sleep,
} from './retry.js';
export { SECRET_FIELDS, SECRET_UNLESS, URI_FIELDS } from './secrets.js';
export { showControls, wrapWords } from './text.js';
export {
  buildRequest,
  camelName,
  encodeSegment,
  fillPath,
  inputJsonSchema,
  MAX_DEPTH,
  NO_CONTENT,
  omitUndefined,
  pathSegmentProblem,
  slashedSegmentProblem,
} from './tool.js';
export { maskToken, traceLine } from './trace.js';
