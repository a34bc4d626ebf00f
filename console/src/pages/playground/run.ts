// One playground call through the SDK, streamed (server-sent events read with ./sse.ts) or not,
// reduced to one outcome the page can show: the completion, a failure in the server's words, or
// "stopped" when the user aborted it.
import { describeError, type FieldErrors, type Tally } from '../../api.ts';
import { TallyApiError, type PlaygroundCompletion, type PlaygroundCompletionRequest } from '../../../../sdk/index.ts';
import { readSse } from './sse.ts';

export interface CallFailure {
  message: string;
  /** the LlmCallError kind, when the provider failed */
  kind?: string;
  providerStatus?: number;
  /** Tally's HTTP status, when the failure was an HTTP answer (not a stream event) */
  status?: number;
  fields: FieldErrors;
}

export type RunOutcome =
  | { outcome: 'completion'; completion: PlaygroundCompletion }
  | { outcome: 'failure'; failure: CallFailure }
  | { outcome: 'stopped' };

function llmErrorOf(body: unknown): { kind?: string; providerStatus?: number } {
  if (!body || typeof body !== 'object') return {};
  const b = body as { kind?: unknown; providerStatus?: unknown };
  return {
    kind: typeof b.kind === 'string' ? b.kind : undefined,
    providerStatus: typeof b.providerStatus === 'number' ? b.providerStatus : undefined,
  };
}

function failureOf(e: unknown): CallFailure {
  const p = describeError(e);
  return { ...p, ...(e instanceof TallyApiError ? llmErrorOf(e.body) : {}) };
}

/** The `error` event's LlmCallError body (or anything else the server put there). */
function failureOfEvent(data: string): CallFailure {
  try {
    const body = JSON.parse(data) as { message?: unknown };
    return { message: typeof body.message === 'string' && body.message ? body.message : data, fields: {}, ...llmErrorOf(body) };
  } catch {
    return { message: data || 'The server reported an error without a message', fields: {} };
  }
}

export async function runCompletion(
  tally: Tally,
  body: PlaygroundCompletionRequest,
  opts: {
    stream: boolean;
    signal: AbortSignal;
    /** each piece of streamed text, as it arrives */
    onDelta?: (text: string) => void;
  },
): Promise<RunOutcome> {
  try {
    if (!opts.stream) {
      const { data } = await tally.playground.completions({ body: { ...body, stream: false }, signal: opts.signal });
      return { outcome: 'completion', completion: data };
    }
    // `parseAs: 'stream'` hands back the response body untouched (the generated type says JSON)
    const { data } = await tally.playground.completions({ body: { ...body, stream: true }, parseAs: 'stream', signal: opts.signal });
    const stream = data as unknown as ReadableStream<Uint8Array> | null;
    if (!stream) return { outcome: 'failure', failure: { message: 'The server answered without a body', fields: {} } };
    let result: RunOutcome | undefined;
    await readSse(stream, (ev) => {
      if (result) return;
      if (ev.event === 'delta') {
        try {
          const d = JSON.parse(ev.data) as { text?: unknown };
          if (typeof d.text === 'string') opts.onDelta?.(d.text);
        } catch {
          /* a malformed piece is skipped; the completion carries the whole text */
        }
      } else if (ev.event === 'completion') {
        try {
          result = { outcome: 'completion', completion: JSON.parse(ev.data) as PlaygroundCompletion };
        } catch {
          result = { outcome: 'failure', failure: { message: 'The completion event was not JSON', fields: {} } };
        }
      } else if (ev.event === 'error') {
        result = { outcome: 'failure', failure: failureOfEvent(ev.data) };
      }
    });
    if (opts.signal.aborted) return { outcome: 'stopped' };
    return result ?? { outcome: 'failure', failure: { message: 'The stream ended before the completion arrived', fields: {} } };
  } catch (e) {
    if (opts.signal.aborted) return { outcome: 'stopped' };
    return { outcome: 'failure', failure: failureOf(e) };
  }
}
