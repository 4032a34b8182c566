/**
 * @cloudcall/sandbox: an offline, stateful emulation of the DigitalOcean API v2 on loopback, so
 * cloudcall runs on a fresh machine with no account and no network.
 */

export {
  connectSandbox,
  connectSandboxInProcess,
  SANDBOX_TOKEN,
  type SandboxConnection,
  sandboxClock,
} from './connect.js';
export {
  FAULT_HEADER,
  type RateLimitSetting,
  type RequestMatch,
  type SandboxFault,
} from './faults.js';
export { sshPublicKey } from './fixtures.js';
export { IN_PROCESS_URL, type InProcessSandbox, openSandbox } from './in-process.js';
export type { SandboxControls, SandboxCoreOptions, SandboxRequestInfo } from './respond.js';
export { type Sandbox, type SandboxOptions, startSandbox } from './server.js';
export { defaultStatePath, MEMORY_STATE, openState, stateCounts, statePathFor } from './state.js';
export { type LockOptions, readStateFile, StateFileError, Store, type StoreOptions } from './store.js';
export { seedWorld, upgradeWorld, WORLD_VERSION, type World } from './world.js';
