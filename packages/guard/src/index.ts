/**
 * @cloudcall/guard: the guard rails the CLI and the MCP server share. Confirmation before
 * destructive tools, protection rules (`--protect`, a policy file), plans with prices (dry runs),
 * an append-only audit log, and quotas per caller, all driven by the tools' annotations and the
 * requests they make, so a new tool is covered with no code of its own. Quota counts kept in
 * Redis are `@cloudcall/guard/redis`'s, an entry of their own.
 */
export {
  type AuditEntry,
  type AuditFilter,
  type AuditIntent,
  type AuditLine,
  type AuditLog,
  AuditLogError,
  type AuditRead,
  type AuditReadOptions,
  type AuditRequest,
  type FrontEnd,
  headPath,
  MAX_LINE_BYTES,
  OUTCOMES,
  type Outcome,
  openAuditLog,
  parseOutcomes,
  parseSince,
  readAudit,
  shortenArguments,
} from './audit.js';
export { type AuditFinding, type AuditVerification, verifyAudit } from './audit-verify.js';
export {
  CALLER_PREFIXES,
  ConfirmationPending,
  type ConfirmQuestion,
  type Decision,
  type GuardOptions,
  GuardRefusal,
  guardedRun,
  localCaller,
  MAX_RPC_ID,
  maskArguments,
  type Plan,
  planCall,
} from './guard.js';
export {
  describeRule,
  loadPolicy,
  POLICY_MAX_BYTES,
  PolicyError,
  PolicyFile,
  type ProtectRule,
  parsePolicy,
  parseRule,
  protectingRule,
  protectionRules,
  type RuleKind,
} from './policy.js';
export {
  DATABASE_NODE_PRICES,
  LOAD_BALANCER_NODE_PRICES,
  type PriceChange,
  priceChange,
  RESERVED_IP_PRICES,
} from './prices.js';
export {
  countRequest,
  describeLimit,
  memoryCounter,
  parseQuota,
  QUOTA_KINDS,
  QUOTA_PERIODS,
  type Quota,
  type QuotaCounter,
  QuotaExceeded,
  type QuotaKind,
  type QuotaLimit,
  type QuotaPeriod,
  QuotaStoreError,
  type QuotaTake,
  QuotaUnavailable,
  type QuotaWindow,
  quotaWindow,
} from './quota.js';
export {
  type Changes,
  changesOf,
  describeTarget,
  type Resource,
  requestOperation,
  resourceOf,
  type Target,
} from './target.js';
export {
  AUDIT_LIST_MAX_BYTES,
  type AuditList,
  auditListTool,
  type GuardSession,
  type GuardToolContext,
  guardTools,
  planTool,
} from './tools.js';
