/**
 * @cloudcall/api: every operation of the platform's API as data, generated from its OpenAPI
 * description: find the operation a request is, what it names and whether it destroys (what the
 * guard rails read), call any operation by its operationId with its request checked first, and
 * the three tools that reach the whole API (`api-search`, `api-describe`, `api-call`).
 */
export {
  callableOperation,
  callOperation,
  type OperationId,
  type OperationInput,
  type OperationResult,
} from './call.js';
export {
  BODY_TEXT_LIMIT,
  describeOperation,
  type OperationDescription,
  type SearchHit,
  searchOperations,
  typeText,
} from './describe.js';
export {
  type Container,
  destroys,
  findOperation,
  type KindData,
  kindOfType,
  kindOfUrn,
  kinds,
  type Match,
  methodsOf,
  modelData,
  type Named,
  namedBy,
  namedOperation,
  type OperationData,
  operationById,
  operations,
  type Reference,
  type ReferenceValue,
  type Role,
  valuesAt,
} from './model.js';
export {
  pointerToken,
  type SchemaCheck,
  type SchemaValidator,
  schemaValidator,
  withDiscriminators,
} from './openapi.js';
export {
  ANSWER_CAP,
  apiCallReadOnlyTool,
  apiCallTool,
  apiCallWholeTool,
  apiDescribeTool,
  apiFamily,
  apiSearchTool,
  apiTools,
  capped,
  checkedCall,
  type Truncated,
} from './tools.js';
export { type RequestParts, requestIssues } from './validate.js';
