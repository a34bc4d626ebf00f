// ClickHouse's HTTP interface, served from the embedded engine (chdb) for the tests, so the
// `http(s)://` path of TALLY_CLICKHOUSE_URL (@clickhouse/client over HTTP: URL parameters,
// `param_<name>` bindings, the query in the URL or the body, rows after the INSERT, errors as a
// 500 with ClickHouse's text) runs in CI without a ClickHouse server. Only what that client sends.
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

interface ChdbResult {
  bytes(): Uint8Array;
}
interface ChdbSession {
  queryAsync(query: string, opts?: { format?: string }): Promise<ChdbResult>;
  queryBindAsync(query: string, params: object, opts?: { format?: string }): Promise<ChdbResult>;
  cleanup(): void;
}

const chdb = createRequire(new URL('../../../engines/chdb/package.json', import.meta.url))('chdb') as {
  Session: new (path: string) => ChdbSession;
};

export interface ClickHouseHttp {
  /** http://user:password@127.0.0.1:<port>/<database>, as TALLY_CLICKHOUSE_URL takes it */
  url: (database: string) => string;
  /** requests seen, for a test that wants to know the client really went over HTTP */
  requests: number;
  close(): Promise<void>;
}

const USER = 'tally';
const PASSWORD = 'harness-secret';

export async function serveClickHouseHttp(dataDir: string): Promise<ClickHouseHttp> {
  const session = new chdb.Session(dataDir);
  const state = { requests: 0 };
  const server: Server = createServer(async (req, res) => {
    state.requests++;
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/ping') {
      res.end('Ok.\n');
      return;
    }
    const auth = req.headers.authorization ?? '';
    const expected = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    if (auth !== expected && req.headers['x-clickhouse-user'] !== USER) {
      res.writeHead(401).end(`Code: 516. DB::Exception: ${USER}: Authentication failed. (AUTHENTICATION_FAILED)\n`);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body = Buffer.concat(chunks);
    if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
    const inUrl = u.searchParams.get('query');
    // the statement is in the URL with its rows in the body (insert), or in the body alone
    const query = inUrl ? `${inUrl}\n${body.toString('utf8')}` : body.toString('utf8');
    // param_<name>=<value in ClickHouse's escaped text format>, as the server reads it: set in the
    // session as is (the engine's own binder would escape the text a second time)
    const sets: string[] = [];
    for (const [k, v] of u.searchParams)
      if (k.startsWith('param_') && /^param_\w+$/.test(k)) sets.push(`SET ${k} = '${v.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`);
    try {
      const r = await session.queryAsync(sets.length ? `${sets.join('; ')}; ${query}` : query);
      res.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-summary': '{}' });
      res.end(Buffer.from(r.bytes()));
    } catch (e) {
      res.writeHead(500, { 'x-clickhouse-exception-code': '1' }).end(`Code: 1. DB::Exception: ${(e as Error).message}\n`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (database) => `http://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    get requests() {
      return state.requests;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      session.cleanup();
    },
  };
}
