// GET /traces' meta.totalItems from trace_counts (per hour, environment and name, and per tag, kept
// by triggers on traces through appended deltas, folded in the background): for every filter the
// counts serve, and windows with edges inside an hour, on an hour, or inside one hour, the count
// equals the traces the list itself returns, after inserts, after updates that move traces to
// another hour, name, environment or tags, and after deletes (as retention makes them); before and
// after the deltas are folded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kysely, sql } from '../../src/store/sql.ts';
import { foldTraceCounts } from '../../src/store/trace-counts.ts';
import { unique } from '../support/client.ts';
import { basic, startTestServer, type TestServer } from '../support/start.ts';

interface Listed {
  id: string;
  timestamp: string;
  name: string | null;
  environment: string;
  tags: string[];
}

const H = 3_600_000;
const T0 = Date.parse('2026-05-04T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const NAMES = ['checkout', 'search', null];
const ENVS = ['production', 'staging'];
const TAGS = [[], ['a'], ['a', 'b'], ['b', 'c'], ['a', 'a', 'c']];

let t: TestServer;
let auth: string;

async function get(path: string) {
  const res = await fetch(`${t.server.url}${path}`, { headers: { authorization: auth } });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body as { data: Listed[]; meta: { totalItems: number } };
}

async function ingest(traces: Record<string, unknown>[]) {
  const batch = traces.map((body) => ({ id: unique('e'), timestamp: new Date().toISOString(), type: 'trace-create', body }));
  const res = await fetch(`${t.server.url}/api/public/ingestion`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  expect(((await res.json()) as { errors: unknown[] }).errors).toEqual([]);
}

/** every trace of the project, as the list returns them */
async function all(): Promise<Listed[]> {
  const out: Listed[] = [];
  for (let page = 1; ; page++) {
    const { data } = await get(`/api/public/traces?limit=100&page=${page}&fields=core`);
    out.push(...data);
    if (data.length < 100) return out;
  }
}

type Filter = { name?: string; environment?: string; tags?: string; fromTimestamp?: string; toTimestamp?: string };

const WINDOWS: Pick<Filter, 'fromTimestamp' | 'toTimestamp'>[] = [
  {},
  { fromTimestamp: iso(T0 + 1.5 * H) },
  { toTimestamp: iso(T0 + 3.25 * H) },
  { fromTimestamp: iso(T0 + 0.75 * H), toTimestamp: iso(T0 + 4.5 * H) },
  { fromTimestamp: iso(T0 + H), toTimestamp: iso(T0 + 4 * H) },
  { fromTimestamp: iso(T0 + 2.1 * H), toTimestamp: iso(T0 + 2.9 * H) },
  { fromTimestamp: iso(T0 + 2 * H), toTimestamp: iso(T0 + 2 * H) },
  { fromTimestamp: iso(T0 + 2 * H + 1), toTimestamp: iso(T0 + 3 * H - 1) },
];
const GROUPS: Omit<Filter, 'fromTimestamp' | 'toTimestamp'>[] = [
  {},
  { name: 'checkout' },
  { environment: 'staging' },
  { tags: 'a' },
  { tags: 'c', name: 'search' },
  { environment: 'production', name: 'search', tags: 'b' },
];

const matches = (x: Listed, f: Filter) =>
  (!f.name || x.name === f.name) &&
  (!f.environment || x.environment === f.environment) &&
  (!f.tags || x.tags.includes(f.tags)) &&
  (!f.fromTimestamp || Date.parse(x.timestamp) >= Date.parse(f.fromTimestamp)) &&
  (!f.toTimestamp || Date.parse(x.timestamp) < Date.parse(f.toTimestamp));

/** each filter's totalItems against the listed traces that match it, before and after a fold: the differences */
async function differences(): Promise<string[]> {
  const before = await countDifferences();
  const q = kysely(t.server.db.em());
  while ((await foldTraceCounts(q)) > 0);
  const { rows } = await sql<{
    n: string;
  }>`select count(*)::text as n from trace_count_deltas where project_id = ${t.projectA.projectId}`.execute(q);
  expect(rows[0]!.n).toBe('0');
  return [...before, ...(await countDifferences()).map((d) => `folded: ${d}`)];
}

async function countDifferences(): Promise<string[]> {
  const traces = await all();
  const out: string[] = [];
  for (const w of WINDOWS)
    for (const g of GROUPS) {
      const f: Filter = { ...g, ...w };
      const { meta } = await get(`/api/public/traces?limit=1&${new URLSearchParams(f as Record<string, string>)}`);
      const want = traces.filter((x) => matches(x, f)).length;
      if (meta.totalItems !== want) out.push(`${JSON.stringify(f)}: ${meta.totalItems} against ${want}`);
    }
  return out;
}

const ids = Array.from({ length: 60 }, () => unique('tc'));

describe('trace counts', () => {
  beforeAll(async () => {
    t = await startTestServer();
    auth = basic(t.projectA);
    // 60 traces over 6 hours, some exactly on the hour, every name, environment and tag set
    await ingest(
      ids.map((id, i) => ({
        id,
        timestamp: iso(T0 + (i % 6) * H + (i % 4 === 0 ? 0 : (i * 97_003) % H)),
        ...(NAMES[i % 3] ? { name: NAMES[i % 3] } : {}),
        environment: ENVS[i % 2],
        tags: TAGS[i % 5],
      })),
    );
  });
  afterAll(() => t?.server.close());

  it('gives the count of the traces listed for every filter and window', async () => {
    expect(await differences()).toEqual([]);
    // folded, the counts hold each trace once
    const q = kysely(t.server.db.em());
    const { rows } = await sql<{
      n: string;
    }>`select sum(n)::text as n from trace_counts where project_id = ${t.projectA.projectId} and tag is null`.execute(q);
    expect(Number(rows[0]!.n)).toBe(60);
  });

  it('follows traces moved to another hour, name, environment or tags', async () => {
    await ingest(
      ids.slice(0, 20).map((id, i) => ({
        id,
        timestamp: iso(T0 + ((i + 3) % 6) * H + 1_234),
        name: i % 2 ? 'search' : 'checkout',
        environment: ENVS[(i + 1) % 2],
        tags: TAGS[(i + 2) % 5],
      })),
    );
    expect(await differences()).toEqual([]);
  });

  it('follows traces deleted, as retention deletes them', async () => {
    const q = kysely(t.server.db.em());
    await sql`delete from traces where project_id = ${t.projectA.projectId} and id = any(${ids.slice(10, 35)})`.execute(q);
    expect(await all()).toHaveLength(35);
    expect(await differences()).toEqual([]);
    const { rows } = await sql<{
      n: string;
    }>`select count(*)::text as n from trace_counts where project_id = ${t.projectA.projectId} and n < 0`.execute(q);
    expect(rows[0]!.n).toBe('0');
  });
});
