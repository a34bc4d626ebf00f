// A fake LLM provider on 127.0.0.1 for adapter, playground and evaluator tests: it records every
// request it receives (method, path with query, headers, parsed body) and answers with what the
// test sets. Nothing a test sends through it leaves loopback.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  /** path and query, as sent */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** the body parsed as JSON when it is JSON, else the raw text (null when empty) */
  body: any;
  raw: string;
}

export type Answer = (req: Received, res: http.ServerResponse) => void;

export interface FakeProvider {
  /** http://127.0.0.1:<port> (no trailing slash) */
  url: string;
  received: Received[];
  /** what the next requests get; defaults to 500 "no answer set" */
  answer: Answer;
  reset(): void;
  close(): Promise<void>;
}

export const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** server-sent events: each entry is one `data:` event (objects are JSON-encoded); `event:` names optional */
export const sse = (res: http.ServerResponse, events: (unknown | { event: string; data: unknown })[], opts: { done?: boolean } = {}) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) {
    if (e && typeof e === 'object' && 'event' in e && 'data' in e)
      res.write(`event: ${(e as { event: string }).event}\ndata: ${JSON.stringify((e as { data: unknown }).data)}\n\n`);
    else res.write(`data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`);
  }
  if (opts.done) res.write('data: [DONE]\n\n');
  res.end();
};

/** `host`: a loopback address (the integration suite's server may call 127.0.0.2 only) */
export async function startFakeProvider(host = '127.0.0.1'): Promise<FakeProvider> {
  const hanging = new Set<http.ServerResponse>();
  const fake: FakeProvider = {
    url: '',
    received: [],
    answer: (_r, res) => json(res, 500, { error: { message: 'the test set no answer' } }),
    reset() {
      fake.received.length = 0;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw || null;
      try {
        if (raw) body = JSON.parse(raw);
      } catch {
        // not JSON: kept as text
      }
      const r: Received = { method: req.method!, path: req.url!, headers: req.headers, body, raw };
      fake.received.push(r);
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      fake.answer(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  fake.url = `http://${host}:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** an answer that never comes (the adapter's timeout must fire) */
export const never: Answer = () => {};
