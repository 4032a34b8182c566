/** A JSON schema (OpenAPI 3.0 flavour: may use `nullable`, `discriminator`, `readOnly`). */
export type JsonSchema = boolean | { [keyword: string]: unknown };

export interface SubsetParameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: true;
  schema?: JsonSchema;
}

export interface SubsetOperation {
  /** Upper-case HTTP method, e.g. `GET`. */
  method: string;
  /** Path template, e.g. `/v2/account/keys/{ssh_key_identifier}`. */
  path: string;
  /** The description's tags (groups) of the operation, e.g. `Kubernetes`. */
  tags: string[];
  /** Where an operation served elsewhere than the API is (the inference endpoints); absent for the API's own. */
  host?: string;
  /** Every bearer_auth scope the operation's security mentions. */
  scopes: string[];
  /** The security alternatives: any one set suffices; every scope of a set is needed. */
  scopeSets: string[][];
  parameters?: SubsetParameter[];
  /** Schema of the application/json request body, when the operation takes one. */
  request?: JsonSchema;
  requestRequired?: true;
  /** Content types of the request body other than application/json, if any. */
  requestContentTypes?: string[];
  /** Per status (`"200"`, `"default"`...): the JSON body schema, or null when the response has no JSON body. */
  responses: Record<string, JsonSchema | null>;
  /** Per status: content types of the response body other than application/json (`text/csv`...), if any. */
  responseContentTypes?: Record<string, string[]>;
  /** Per status: lower-case names of the declared response headers. */
  responseHeaders: Record<string, string[]>;
}

export interface Subset {
  openapi: string;
  info: { version: string };
  operations: Record<string, SubsetOperation>;
  components: { schemas: Record<string, JsonSchema> };
  /**
   * Property name -> `secret` (its whole value: a password, a private key) or `uri` (a URI with
   * credentials in it), for the properties of the schemas above, as the description marks them
   * and a reviewed table decides; `unless`: sibling fields that make it no secret where present.
   */
  secrets: Record<string, { kind: 'secret' | 'uri'; unless?: string[] }>;
}

export interface ValidationResult {
  valid: boolean;
  /** Readable messages, e.g. `/ssh_keys/0/id must be integer`. Empty when valid. */
  errors: string[];
}

export interface OperationInfo {
  method: string;
  path: string;
  scopes: string[];
  scopeSets: string[][];
}

/**
 * The content types other than application/json the operation declares for the status (or its
 * `NXX` range, or `default`): what a file answer (CSV, PDF) may be sent as. Empty when none.
 * Throws for an unknown operation or an undeclared status.
 */
export function responseContentTypes(operationId: string, status: number): string[];

/** The parsed subset.json. */
export const subset: Subset;

/** Method, path and token scopes of an operation. Throws for an unknown operationId. */
export function operation(operationId: string): OperationInfo;

/**
 * Whether the operation declares a success other than 204 that carries no JSON body (such as a 202
 * to a resize): a client must then take an empty answer as "no content". Throws for an unknown one.
 */
export function noResponseBody(operationId: string): boolean;

/**
 * Validates a response body against the schema declared for the status (falling back to its `NXX`
 * range, then `default`). For a status declared without a JSON body, only an empty body
 * (undefined, null or '') is valid. Throws for an unknown operationId or an undeclared status.
 */
export function validateResponse(operationId: string, status: number, body: unknown): ValidationResult;

/**
 * Validates a request body; `undefined` means "no body" (valid unless the body is required).
 * Throws for an unknown operationId, or a body given to an operation that declares none.
 */
export function validateRequest(operationId: string, body: unknown): ValidationResult;

/** Throws an Error listing the problems when the response body does not match. */
export function assertValidResponse(operationId: string, status: number, body: unknown): void;

/** Throws an Error listing the problems when the request body does not match. */
export function assertValidRequest(operationId: string, body: unknown): void;
