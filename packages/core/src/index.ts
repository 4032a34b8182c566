/**
 * @cloudcall/core: the API client, the error hierarchy, pagination, rate limit information and
 * the tool contract that every cloudcall family package defines its tools with. This entry is the
 * public API, covered by semver (docs/library.md, "The public API of @cloudcall/core").
 * `@cloudcall/core/credentials` reads a token and the config paths; the helpers the cloudcall
 * packages share among themselves are `@cloudcall/core/internal`, which semver does not cover.
 */
export {
  ApiClient,
  type ApiResponse,
  type AttemptSignal,
  type CallHooks,
  type ClientEvent,
  type ClientFactory,
  type ClientOptions,
  createClient,
  createClientFactory,
  DEFAULT_BASE_URL,
  type DispatchRequest,
  type DispatchResponse,
  type HttpMethod,
  type QueryValue,
  ReadOnlyViolationError,
  type RequestDispatcher,
  type RequestOptions,
  VERSION,
} from './client.js';
export {
  ApiError,
  type ApiErrorInit,
  CancelledError,
  ClientApiError,
  CloudcallError,
  type ErrorKind,
  InputError,
  type InputIssue,
  NetworkError,
  ServerApiError,
  TimeoutError,
  UnexpectedResponseError,
  type WaitErrorInit,
  WaitFailedError,
  type WaitTarget,
  WaitTimeoutError,
} from './errors.js';
export type { ToolListing } from './listing.js';
export { toolListing } from './listing.js';
export { type Links, type ListResponse, type Meta, paginate } from './pagination.js';
export type { Action, Region, Size } from './platform.js';
export { type RateLimit, rateLimitNote } from './rate-limit.js';
export type { RetryOptions } from './retry.js';
export { HIDDEN, maskSecrets } from './secrets.js';
export {
  type AnyTool,
  annotations,
  type BoundTools,
  bindTools,
  defineTool,
  type FamilyName,
  type FieldMap,
  type InputSchema,
  parseArgs,
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
