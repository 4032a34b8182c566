/**
 * What stops one tool call on the fast paths (fast-call.ts over stdio, http.ts stateless), made
 * for every call, so made cheaply: Node 20's `new AbortController().signal` takes 12–30 µs (an
 * EventTarget given AbortSignal's prototype afterwards), about a tenth of a whole call's processor
 * time over HTTP, for a signal that nearly every call leaves untouched.
 *
 * `signal` is this object as the AbortSignal the call's context is typed with. It has what the
 * call path reads of one: `aborted`, `reason`, `throwIfAborted()` and `addEventListener` /
 * `removeEventListener` of `abort` (cloudcall's packages: the API client, sleeps and waits; the
 * MCP SDK's request when it asks the client to confirm). It is not an EventTarget: nothing on
 * that path hands the call's signal to an API that checks its class (`fetch`, `AbortSignal.any`).
 */
type Listener = ((event: Event) => void) | { handleEvent(event: Event): void };

export class CallAbort {
  aborted = false;
  reason: unknown = undefined;
  #listeners: Listener[] | undefined;

  /** This, typed as the AbortSignal a call's context takes. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /**
   * Adds a listener for `abort`, which is told at most once (so `once` changes nothing); one
   * added after the abort is not told, as with AbortSignal. Other event types are never sent.
   */
  addEventListener(type: string, listener: Listener | null, _options?: unknown): void {
    if (type !== 'abort' || !listener || this.aborted) return;
    this.#listeners ??= [];
    // As EventTarget: the same listener added twice is there once.
    if (!this.#listeners.includes(listener)) this.#listeners.push(listener);
  }

  removeEventListener(type: string, listener: Listener | null, _options?: unknown): void {
    if (type !== 'abort' || !listener || !this.#listeners) return;
    const at = this.#listeners.indexOf(listener);
    if (at !== -1) this.#listeners.splice(at, 1);
  }

  /**
   * Stops the call: `aborted` and `reason` are set (by default an AbortError, as AbortController
   * gives), then each listener is told once, in the order added. A listener that throws does not
   * keep the others from hearing; its error is thrown afterwards, out of the way, as
   * EventTarget reports one.
   */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason =
      reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    const event = new Event('abort');
    for (const listener of listeners) {
      try {
        if (typeof listener === 'function') listener.call(this, event);
        else listener.handleEvent(event);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
