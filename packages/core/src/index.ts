/**
 * @cloudcall/core: the API client, the error hierarchy, retries, and the tool contract that every
 * cloudcall family package defines its tools with.
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
export {
  ApiClient,
  type ApiResponse,
  type ClientEvent,
  type ClientFactory,
  type ClientOptions,
  createClient,
  createClientFactory,
  DEFAULT_BASE_URL,
  type HttpMethod,
  type QueryValue,
  type RequestOptions,
  VERSION,
} from './client.js';
export {
  type Credentials,
  configDirectory,
  defaultSandboxStatePath,
  resolveCredentials,
  TOKEN_ENV_VARS,
} from './credentials.js';
export { durationMs } from './duration.js';
export {
  ApiError,
  type ApiErrorInit,
  CancelledError,
  ClientApiError,
  CloudcallError,
  describeError,
  type ErrorKind,
  InputError,
  type InputIssue,
  NetworkError,
  redact,
  ServerApiError,
  TimeoutError,
  UnexpectedResponseError,
  type WaitErrorInit,
  WaitFailedError,
  type WaitTarget,
  WaitTimeoutError,
} from './errors.js';
export { listedAnnotations, listingSchema, shapeOf, type ToolListing, toolListing } from './listing.js';
export { closest, globPattern } from './names.js';
export {
  type Links,
  type ListResponse,
  type Meta,
  pageArgument,
  paginate,
  perPageArgument,
  runAllPages,
} from './pagination.js';
export type { Action, Region, Size } from './platform.js';
export {
  LOW_RATE_LIMIT_SHARE,
  type RateLimit,
  rateLimitFromHeaders,
  rateLimitLow,
  rateLimitNote,
  rateLimitSpacing,
} from './rate-limit.js';
export { type ErrorReport, errorReport } from './report.js';
export {
  backoffDelay,
  defaultRetryOptions,
  IDEMPOTENT_METHODS,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  type RetryOptions,
  sleep,
} from './retry.js';
export { HIDDEN, maskSecrets } from './secrets.js';
export {
  type AnyTool,
  annotations,
  type BoundTools,
  bindTools,
  buildRequest,
  camelName,
  defineTool,
  encodeSegment,
  type FamilyName,
  type FieldMap,
  fillPath,
  type InputSchema,
  inputJsonSchema,
  MAX_DEPTH,
  NO_CONTENT,
  omitUndefined,
  parseArgs,
  pathSegmentProblem,
  type RequestMapping,
  returns,
  runTool,
  sendRequest,
  type ToolAnnotations,
  type ToolClock,
  type ToolContext,
  type ToolDefinition,
  type ToolFamily,
  type ToolProgress,
  type ToolWait,
  type WaitKind,
} from './tool.js';
export { maskToken, traceLine } from './trace.js';
