/**
 * The two parts of undici the client uses, imported from their own modules: undici's index loads
 * everything it offers (fetch, WebSocket, EventSource, caches, mocks, with the builtins they
 * need), which costs a command-line run about 60 ms before its first request. Typed here from
 * undici's own declarations; the client test exercises both through a real server.
 */
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';

  const PoolClass: typeof Pool;
  export default PoolClass;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** `Dispatcher.prototype.request`: called with the dispatcher as `this`. */
  export default function request(
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
}
