/**
 * The SSE events of one stateful HTTP session, kept so that a client whose stream dropped can
 * resume it with `Last-Event-ID` (the SDK's `EventStore`). Bounded twice, in bytes of UTF-8 (what
 * a message costs, whatever its script: a character of Chinese text is 3 bytes, not 1): per
 * session (MAX_EVENTS, MAX_BYTES), and for every session of the process together (an
 * `EventBudget`, --max-event-store-bytes), the oldest events going first past either. So a
 * session that never resumes costs a fixed amount at most, and all of them together too; an id
 * that has gone (or never was) is refused by the SDK with 400.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/** Events kept per session. */
export const MAX_EVENTS = 256;
/** Bytes of JSON kept per session (a full tools/list is about 63 KB). */
export const MAX_BYTES = 512 * 1024;

interface StoredEvent {
  id: string;
  streamId: string;
  /**
   * The message as JSON text, parsed again only to replay it: the text is all it costs to keep,
   * where the message object would keep its whole graph alive.
   */
  text: string;
  bytes: number;
  store: SessionEventStore;
}

/** The bytes of events every session's store keeps together, and which to drop first. */
export class EventBudget {
  /** Every event kept, of every session, oldest first (a Set keeps insertion order). */
  private readonly events = new Set<StoredEvent>();
  private total = 0;

  constructor(readonly limit: number) {}

  /** Bytes kept now, all sessions together. */
  get bytes(): number {
    return this.total;
  }

  /** Counts a new event, then drops the oldest events, of any session, past the limit. */
  add(event: StoredEvent): void {
    this.events.add(event);
    this.total += event.bytes;
    for (const oldest of this.events) {
      if (this.total <= this.limit) break;
      oldest.store.drop(oldest);
    }
  }

  remove(event: StoredEvent): void {
    if (this.events.delete(event)) this.total -= event.bytes;
  }
}

export class SessionEventStore implements EventStore {
  /** By id, oldest first (a Map keeps insertion order). */
  private readonly events = new Map<string, StoredEvent>();
  private bytes = 0;
  private next = 0;

  constructor(
    private readonly budget = new EventBudget(Number.POSITIVE_INFINITY),
    private readonly limits = { events: MAX_EVENTS, bytes: MAX_BYTES },
  ) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // The counter alone makes ids unique and ordered; the stream id says where one belongs.
    const id = `${++this.next}.${streamId}`;
    const text = JSON.stringify(message);
    const event: StoredEvent = { id, streamId, text, bytes: Buffer.byteLength(text, 'utf8'), store: this };
    this.events.set(id, event);
    this.bytes += event.bytes;
    this.budget.add(event);
    for (const oldest of this.events.values()) {
      if (this.events.size <= this.limits.events && this.bytes <= this.limits.bytes) break;
      this.drop(oldest);
    }
    return id;
  }

  /** Forgets one event (past a limit, this session's or the budget's). */
  drop(event: StoredEvent): void {
    if (this.events.get(event.id) !== event) return;
    this.events.delete(event.id);
    this.bytes -= event.bytes;
    this.budget.remove(event);
  }

  /** Forgets every event: the session has closed, and its bytes go back to the budget. */
  clear(): void {
    for (const event of this.events.values()) this.drop(event);
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
      else if (after && event.streamId === last.streamId && event.text !== '{}') {
        await send(id, JSON.parse(event.text) as JSONRPCMessage);
      }
    }
    return last.streamId;
  }
}
