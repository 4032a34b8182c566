/**
 * The SSE events of one stateful HTTP session, kept so that a client whose stream dropped can
 * resume it with `Last-Event-ID` (the SDK's `EventStore`). Bounded: the oldest events go first
 * past MAX_EVENTS or MAX_BYTES, so a session that never resumes costs a fixed amount at most;
 * an id that has gone (or never was) is refused by the SDK with 400.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Events kept per session. */
export const MAX_EVENTS = 256;
/** Bytes of JSON kept per session (a full tools/list is about 63 KB). */
export const MAX_BYTES = 512 * 1024;

interface StoredEvent {
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
}

export class SessionEventStore implements EventStore {
  /** By id, oldest first (a Map keeps insertion order). */
  private readonly events = new Map<string, StoredEvent>();
  private bytes = 0;
  private next = 0;

  constructor(private readonly limits = { events: MAX_EVENTS, bytes: MAX_BYTES }) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // The counter alone makes ids unique and ordered; the stream id says where one belongs.
    const id = `${++this.next}.${streamId}`;
    const bytes = JSON.stringify(message).length;
    this.events.set(id, { streamId, message, bytes });
    this.bytes += bytes;
    for (const [oldest, event] of this.events) {
      if (this.events.size <= this.limits.events && this.bytes <= this.limits.bytes) break;
      this.events.delete(oldest);
      this.bytes -= event.bytes;
    }
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  /** Sends the events of `lastEventId`'s stream that came after it, in order. */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.events.get(lastEventId);
    if (!last) throw new Error(`event ${lastEventId} is not kept`);
    let after = false;
    for (const [id, event] of [...this.events]) {
      if (id === lastEventId) after = true;
      // A priming event (empty) carries nothing to send again.
      else if (after && event.streamId === last.streamId && Object.keys(event.message).length > 0) {
        await send(id, event.message);
      }
    }
    return last.streamId;
  }
}
