/**
 * @cloudcall/sandbox: an offline, stateful emulation of the DigitalOcean API v2 on loopback, so
 * cloudcall runs on a fresh machine with no account and no network.
 */
export { startSandbox } from './server.js';
export { Store } from './store.js';
export { seedWorld, WORLD_VERSION } from './world.js';
export { connectSandbox, SANDBOX_TOKEN } from './connect.js';
