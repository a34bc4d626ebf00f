// What every LLM adapter test checks about failures, against the loopback fake provider: 401 is
// auth_invalid with the secret redacted even when the provider echoes it, 429 is rate_limited, a
// provider that never answers is a timeout, an allow list without the address is egress_refused
// with nothing received, a closed port is unreachable. Each adapter's test file keeps what is its
// own (the error body its provider sends, extra classifications, token endpoints) and passes it in.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmError, type LlmCall, type LlmConnectionTarget } from '../../src/domain/llm/call.ts';
import { parseAllowList, type AllowList } from '../../src/domain/llm/egress.ts';
import { json, never, startFakeProvider, type Answer, type FakeProvider, type Received } from './fake-provider.ts';

/**
 * Starts the fake provider before the file's tests, clears what it received before each test and
 * closes it after. The returned handle stands for the provider started in beforeAll.
 */
export function useFakeProvider(): FakeProvider {
  let real: FakeProvider | undefined;
  const get = () => {
    if (!real) throw new Error('the fake provider is not started (used outside a test?)');
    return real;
  };
  beforeAll(async () => {
    real = await startFakeProvider();
  });
  afterAll(() => real?.close());
  beforeEach(() => get().reset());
  return {
    get url() {
      return get().url;
    },
    get received() {
      return get().received;
    },
    get answer() {
      return get().answer;
    },
    set answer(a) {
      get().answer = a;
    },
    reset: () => get().reset(),
    close: () => get().close(),
  };
}

/** the LlmError a call fails with (anything else fails the test) */
export async function catchLlm(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof LlmError) return e;
    throw e;
  }
  throw new Error('expected the call to fail');
}

/** http://127.0.0.1:<port> of a port that was just listened on and closed again */
export async function closedPortOrigin(): Promise<string> {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  return `http://127.0.0.1:${port}`;
}

export interface ProviderFailures {
  /** the adapter's name, for the describe title */
  name: string;
  fake: FakeProvider;
  /** the adapter function */
  adapter: (connection: LlmConnectionTarget, call: LlmCall, egress: AllowList) => Promise<unknown>;
  /** the connection to use; `origin` (http://host:port, no path) replaces the fake provider's */
  connection: (origin?: string) => LlmConnectionTarget;
  /** each call is tried in every test, in order (Vertex: Gemini and Claude) */
  calls: LlmCall[];
  /** the secret the provider echoes in its 401 and that must not come back, nor its last 8 characters */
  secret: string;
  /** other values that must not come back from a 401 (header values) */
  alsoRedacted?: string[];
  /** the provider's 401 message; the test appends the echoed secret */
  authMessage: string;
  rateLimitMessage: string;
  /** the JSON error body the provider sends for a status and message */
  errorBody: (status: number, message: string, call: LlmCall) => unknown;
  /** headers the provider sends with an error (Bedrock's x-amzn-errortype, Azure's retry-after) */
  errorHeaders?: (status: number) => Record<string, string>;
  /** the provider's success answer (sent when a request does reach it) */
  okBody: (call: LlmCall) => unknown;
  /** sets what the provider's model endpoint answers (default: fake.answer; Vertex routes its token endpoint apart) */
  answer?: (a: Answer) => void;
  /** the requests that count as reaching the provider (default: all received) */
  sent?: () => Received[];
  /** also test that an aborted signal is a timeout (with the first call) */
  abortSignal?: boolean;
  /** adapter-specific assertions run at the end of the shared test of that name */
  more?: { auth?: () => Promise<void>; rateLimited?: () => Promise<void>; unreachable?: () => Promise<void> };
}

/** registers the shared failure tests for one adapter */
export function describeProviderFailures(p: ProviderFailures) {
  const loopback = parseAllowList('127.0.0.1');
  const sent = p.sent ?? (() => p.fake.received);
  const answer = p.answer ?? ((a: Answer) => void (p.fake.answer = a));
  const fail = (status: number, message: string) => {
    answer((_r, res) => json(res, status, p.errorBody(status, message, currentCall), p.errorHeaders?.(status) ?? {}));
  };
  // the call being tried (calls run one after the other), for the body the provider answers with
  let currentCall: LlmCall = p.calls[0]!;
  const attempt = (call: LlmCall, allow = loopback, origin?: string) => {
    currentCall = call;
    return catchLlm(p.adapter(p.connection(origin), call, allow));
  };

  describe(`${p.name} adapter: shared failures`, () => {
    it('401 is auth_invalid, and the key is redacted even when the provider echoes it', async () => {
      fail(401, `${p.authMessage}: ${p.secret} (…${p.secret.slice(-8)})`);
      for (const [i, call] of p.calls.entries()) {
        const e = await attempt(call);
        expect(e.kind).toBe('auth_invalid');
        expect(e.status).toBe(401);
        expect(e.message).toContain(p.authMessage);
        expect(e.message).not.toMatch(/\{\s*"/); // the provider's words, not its JSON body
        expect(e.message).not.toContain(p.secret);
        expect(e.message).not.toContain(p.secret.slice(-8));
        for (const s of p.alsoRedacted ?? []) expect(e.message).not.toContain(s);
        expect(e.message).toContain('***');
        expect(sent()).toHaveLength(i + 1); // no retries
      }
      await p.more?.auth?.();
    });

    it('429 is rate_limited', async () => {
      fail(429, p.rateLimitMessage);
      for (const [i, call] of p.calls.entries()) {
        const e = await attempt(call);
        expect(e.kind).toBe('rate_limited');
        expect(e.status).toBe(429);
        expect(e.retryable).toBe(true);
        expect(sent()).toHaveLength(i + 1); // no retries
      }
      await p.more?.rateLimited?.();
    });

    it('a provider that never answers is a timeout', async () => {
      answer(never);
      for (const [i, call] of p.calls.entries()) {
        const started = Date.now();
        const e = await attempt({ ...call, timeoutMs: 300 });
        expect(e.kind).toBe('timeout');
        expect(Date.now() - started).toBeLessThan(3_000);
        expect(sent()).toHaveLength(i + 1);
      }
    });

    if (p.abortSignal) {
      it('an aborted signal is a timeout', async () => {
        answer(never);
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        const e = await attempt({ ...p.calls[0]!, signal: controller.signal });
        expect(e.kind).toBe('timeout');
      });
    }

    it('an allow list without the address is egress_refused, and nothing reaches the provider', async () => {
      answer((_r, res) => json(res, 200, p.okBody(currentCall)));
      for (const call of p.calls) {
        const e = await attempt(call, parseAllowList(''));
        expect(e.kind).toBe('egress_refused');
        expect(e.message).toMatch(/loopback/);
        expect(p.fake.received).toHaveLength(0);

        // a host name is checked on the address it resolves to, at connect time
        const e2 = await attempt(call, parseAllowList('10.0.0.0/8'), p.fake.url.replace('127.0.0.1', 'localhost'));
        expect(e2.kind).toBe('egress_refused');
        expect(p.fake.received).toHaveLength(0);
      }
    });

    it('a closed port is unreachable', async () => {
      const origin = await closedPortOrigin();
      for (const call of p.calls) {
        const e = await attempt(call, loopback, origin);
        expect(e.kind).toBe('unreachable');
      }
      await p.more?.unreachable?.();
    });
  });
}
