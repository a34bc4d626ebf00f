// A small server-sent-events parser (the WHATWG event-stream format): bytes in, events out,
// whatever the chunk boundaries (an event, a line or a UTF-8 character may be split anywhere).
// Not hey-api's SSE client (generated/client/core/serverSentEvents.gen.ts): it reconnects
// after a dropped stream, and re-sending this POST would run (and bill) the model call again;
// the typed operation with `parseAs: 'stream'` hands over the body once.

export interface SseEvent {
  /** the `event:` field; "message" when absent */
  event: string;
  /** the `data:` lines joined with "\n" */
  data: string;
}

export class SseParser {
  private buffer = '';
  private decoder = new TextDecoder();
  private eventName = '';
  private data: string[] = [];
  private sawData = false;

  /** Feeds one chunk; returns the events it completed. */
  push(chunk: Uint8Array | string): SseEvent[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    return this.drain(false);
  }

  /** The end of the stream. A last event missing its blank line is dispatched too (EventSource would drop it; losing a completion is worse). */
  end(): SseEvent[] {
    this.buffer += this.decoder.decode();
    const out = this.drain(true);
    const last = this.dispatch();
    return last ? [...out, last] : out;
  }

  private drain(final: boolean): SseEvent[] {
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      if (!m) break;
      // a lone "\r" at the end of a chunk may be the first half of "\r\n"
      if (m[0] === '\r' && m.index === this.buffer.length - 1 && !final) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    if (final && this.buffer) {
      const ev = this.line(this.buffer);
      this.buffer = '';
      if (ev) out.push(ev);
    }
    return out;
  }

  private line(line: string): SseEvent | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null; // comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.eventName = value;
    else if (field === 'data') {
      this.data.push(value);
      this.sawData = true;
    }
    return null;
  }

  private dispatch(): SseEvent | null {
    const ev = this.sawData ? { event: this.eventName || 'message', data: this.data.join('\n') } : null;
    this.eventName = '';
    this.data = [];
    this.sawData = false;
    return ev;
  }
}

/** Reads a byte stream to its end, calling `onEvent` for each event as it completes. */
export async function readSse(stream: ReadableStream<Uint8Array>, onEvent: (e: SseEvent) => void): Promise<void> {
  const parser = new SseParser();
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const e of parser.push(value)) onEvent(e);
    }
    for (const e of parser.end()) onEvent(e);
  } finally {
    reader.releaseLock();
  }
}
