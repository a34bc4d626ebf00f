// The conformance suite's own fake LLM gateway: an HTTP server that answers every request with
// the reply the current case sets and records what it received, so a case can check the exact
// request Tally sent to a provider (x-conformance `gateway`).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from './spec.ts';

export interface GatewayRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Json;
}
export interface GatewayReply {
  status: number;
  body: Json;
  headers?: Record<string, string>;
}

export interface Gateway {
  /** where Tally reaches it */
  url: string;
  received: GatewayRequest[];
  reply: GatewayReply;
  close(): Promise<void>;
}

/** `publicUrl`: the URL Tally uses when it differs from the listening address (a remote Tally) */
export async function startGateway(host = '127.0.0.1', port = 0, publicUrl?: string): Promise<Gateway> {
  const gw: Gateway = {
    url: '',
    received: [],
    reply: { status: 500, body: { error: { message: 'no reply set for this case' } } },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Json = raw;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        /* kept as text for the report */
      }
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
      gw.received.push({ method: req.method!, path: req.url!, headers, body });
      res.writeHead(gw.reply.status, { 'content-type': 'application/json', ...gw.reply.headers });
      res.end(JSON.stringify(gw.reply.body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  gw.url = publicUrl?.replace(/\/$/, '') ?? `http://${host}:${(server.address() as AddressInfo).port}`;
  return gw;
}
