// Ships the change feed to ClickHouse: takes the oldest changes no other exporter holds (their
// rows locked in PostgreSQL), reads each changed row as it is now, inserts it into ClickHouse with
// the change's sequence number as its version (a deleted row as a tombstone), and only then
// forgets the changes, in the same transaction. A crash or an outage between the insert and the
// commit sends the same rows again later with the same versions: ClickHouse keeps one of them.
import { Readable } from 'node:stream';
import type { Analytics, RawFormat } from '../analytics/clickhouse.ts';
import { migrateClickHouse, OBSERVATION_WRITE_SETTINGS } from '../analytics/schema.ts';
import { chTime, tombstone } from '../analytics/rows.ts';
import type { Database } from '../db/orm.ts';
import { EXPORTED, type ExportedEntity } from '../domain/analytics/tables.ts';
import { backoffMs } from '../domain/backoff.ts';
import type { Logger } from '../logger.ts';
import { CH_ROLLUP_TABLES, recomputeDays, recomputeHours, recomputeUserDays } from '../domain/metrics/clickhouse-rollup.ts';
import {
  type Change,
  exportLines,
  forgetChanges,
  queueRecomputes,
  rollupVersion,
  takeChanges,
  vacuumFeed,
} from '../store/analytics-changes.ts';
import { type Db, kysely } from '../store/sql.ts';

export interface ExporterOptions {
  /** changes taken per export (one ClickHouse insert per table) */
  batchSize?: number;
  /**
   * while a backlog drains (takes come back full), each take doubles, up to this: fewer, larger
   * parts, which ClickHouse merges sooner and FINAL reads faster (default 50,000)
   */
  maxBatchSize?: number;
  /** the pause after a take that came back short; a batch applied wakes the exporter at once */
  idleMs?: number;
  /**
   * while takes come back empty the pause doubles, up to this (default 2,000 ms): an idle server
   * polled the feed 8 times a second, 1.6% of a core of its own thread (bench/idle.ts). A batch
   * this process applies still wakes it at once; a change made elsewhere (another instance) waits
   * at most this long
   */
  maxIdleMs?: number;
  /**
   * rounds in flight at once (default 2): while one reads rows from PostgreSQL another inserts
   * into ClickHouse; they take disjoint changes (SKIP LOCKED)
   */
  concurrency?: number;
  /**
   * once a backlog has drained, each day partition of observations it touched, and each roll-up,
   * that ClickHouse still holds in more than this many parts is merged whole (OPTIMIZE … FINAL),
   * one at a time; 0: never (default 1)
   */
  compactAboveParts?: number;
  /** a partition merged so is not merged again by this process for this long (default 10 minutes) */
  compactEveryMs?: number;
  /**
   * the feed table is vacuumed once a backlog has drained and after every this many changes this
   * process exported (default 1,000,000; 0: never, autovacuum's alone)
   */
  vacuumAfterChanges?: number;
}

export interface ExporterStats {
  exportedRows: number;
  exports: number;
  failures: number;
  lastError: string | null;
  /** partitions merged after a backlog (observations' days, the roll-ups whole) */
  compactedPartitions: number;
  /** VACUUMs of the feed table this process ran */
  feedVacuums: number;
}

const RETRY = { baseMs: 250, maxMs: 30_000, jitter: 'half' } as const;

/**
 * An export's insert: every time in it is ClickHouse's own text form (PostgreSQL's to_char, or
 * chTime), so it is read as such rather than guessed at (the connection's best_effort, which the
 * engine otherwise applies to every one of an observation's five times). Draining 100,000 changes
 * (three alternating triples, 2026-11-29): 15,007-17,273 rows/s and 9.2-10.3 s of server and
 * PostgreSQL CPU, against 13,527-15,820 rows/s and 10.2-12.0 s (2 of 3 triples favour it; one
 * 50,000-row insert alone varied 0.8-2.0 s of CPU on this machine, too noisy to show it apart);
 * with input_format_parallel_parsing off as well, 12,880-15,548 rows/s (not taken)
 */
const EXPORT_INSERT_SETTINGS = { ...OBSERVATION_WRITE_SETTINGS, date_time_input_format: 'basic' } as const;

export class AnalyticsExporter {
  readonly stats: ExporterStats = { exportedRows: 0, exports: 0, failures: 0, lastError: null, compactedPartitions: 0, feedVacuums: 0 };
  private running = false;
  private loops: Promise<void>[] = [];
  private wakeUps = new Set<() => void>();
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly maxBatchSize: number;
  private readonly idleMs: number;
  private readonly maxIdleMs: number;
  private readonly compactAboveParts: number;
  private readonly compactEveryMs: number;
  private readonly vacuumAfterChanges: number;
  /** changes exported since the feed was last vacuumed */
  private sinceVacuum = 0;
  private vacuuming: Promise<void> | null = null;
  private readonly db: Database;
  private readonly analytics: Analytics;
  private readonly log: Logger;

  constructor(db: Database, analytics: Analytics, log: Logger, opts: ExporterOptions = {}) {
    this.db = db;
    this.analytics = analytics;
    this.log = log;
    this.batchSize = opts.batchSize ?? 10_000;
    this.maxBatchSize = Math.max(this.batchSize, opts.maxBatchSize ?? 50_000);
    this.idleMs = opts.idleMs ?? 250;
    this.maxIdleMs = Math.max(this.idleMs, opts.maxIdleMs ?? 2_000);
    this.concurrency = opts.concurrency ?? 2;
    this.compactAboveParts = opts.compactAboveParts ?? 1;
    this.compactEveryMs = opts.compactEveryMs ?? 600_000;
    this.vacuumAfterChanges = opts.vacuumAfterChanges ?? 1_000_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = Array.from({ length: this.concurrency }, () => this.run());
  }

  /** a batch was applied: export now rather than at the next pause's end */
  wake(): void {
    for (const w of [...this.wakeUps]) w();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await Promise.all(this.loops);
    await this.compacted();
    await this.vacuuming;
  }

  /**
   * The feed's dead rows go once a backlog has drained (every take from the queue's start and
   * every lag count reads through them until vacuum) and after each vacuumAfterChanges exported:
   * PostgreSQL's autovacuum would too, but may be off or minutes late, and while it waits an
   * empty feed costs a backend half a second per poll after 11 M changes.
   */
  private vacuumSoon(): void {
    if (this.vacuumAfterChanges <= 0 || this.vacuuming) return;
    this.sinceVacuum = 0;
    this.vacuuming = vacuumFeed(kysely(this.db.em()))
      .then(() => {
        this.stats.feedVacuums++;
      })
      .catch((e: unknown) => this.log.warn({ err: e }, 'vacuuming the analytics feed failed; autovacuum will'))
      .finally(() => {
        this.vacuuming = null;
      });
  }

  /** settles when the merges of the partitions drained backlogs touched are done */
  async compacted(): Promise<void> {
    while (this.compaction) await this.compaction;
  }

  /**
   * Where the next take starts: past the highest change this process exported while the takes
   * came back full (a backlog). A change below it can still appear (a transaction that took its
   * sequence number earlier and committed later, or a batch another exporter rolled back), so a
   * take that comes back short is followed by one from the start, which is cheap once the
   * backlog is gone.
   */
  private floor = '0';
  /** this process's rounds exporting a full take now */
  private fullRounds = 0;

  /** exports one batch of at most `size` changes; returns how many changes it took */
  async exportOnce(size = this.batchSize): Promise<number> {
    const floor = this.floor;
    let full = false;
    let drainedDays: string[] = [];
    const taken = await this.db
      .em()
      .transactional(async (em) => {
        const tx = kysely(em);
        const changes = await takeChanges(tx, size, floor);
        if (!changes.length) return { n: 0, top: floor };
        full = changes.length === size;
        if (full) this.fullRounds++;
        const touched = new TouchedHours();
        for (const c of changes) if (c.entity === 'h') touched.add(c.projectId, c.oldTimeMs!);
        for (const [entity, latest] of latestPerRow(changes)) {
          const rows = await exportLines(tx, entity, [...latest.values()]);
          const found = new Map(rows.map((r) => [`${r.projectId}\u0000${r.id}`, r]));
          // an observation's copy is keyed by its hour too: a deleted one's tombstone is sent below, at the hour it left
          const leftDay = new Set(
            entity === 'o' ? changes.filter((c) => c.entity === 'o' && c.oldTimeMs !== null).map((c) => `${c.projectId}\u0000${c.id}`) : [],
          );
          const gone = [...latest]
            .filter(([key]) => !found.has(key) && !leftDay.has(key))
            .map(([, c]) => JSON.stringify(tombstone(c.projectId, c.id, c.seq)));
          if (entity === 'o') {
            for (const r of rows) if (r.startMs !== null) touched.add(r.projectId, r.startMs);
            // the hours moved or deleted rows left; the copy left there has another key (the hour is in it): its tombstone
            for (const c of changes) {
              if (c.entity !== 'o' || c.oldTimeMs === null) continue;
              touched.add(c.projectId, c.oldTimeMs);
              const now = found.get(`${c.projectId}\u0000${c.id}`);
              if (!now || hourOf(now.startMs!) !== hourOf(c.oldTimeMs))
                gone.push(JSON.stringify({ ...tombstone(c.projectId, c.id, c.seq), start_time: chTime(c.oldTimeMs) }));
            }
          }
          const { table, columns } = EXPORTED[entity];
          // raw text as PostgreSQL wrote it, positional (no key per value): no row is parsed or rebuilt here
          if (rows.length)
            await this.insertRaw(
              table,
              [...columns.map((c) => c.name), '_version', '_deleted'],
              'JSONCompactEachRow',
              rows.map((r) => r.line),
            );
          if (gone.length) await this.insertRaw(table, null, 'JSONEachRow', gone);
          this.stats.exportedRows += rows.length + gone.length;
        }
        // a full take means a backlog: its hours are recomputed once it is drained, not after every
        // batch (a recompute reads each touched hour and day whole; while 100,000 changes drained,
        // the recomputes took 40% of the engine's time). So does another round's full take still in
        // flight: it will queue marks of its own, and the next take recomputes them all at once. The
        // hours wait in the feed as marks, committed with the forgetting of these changes: a crash
        // loses none, and health counts them
        if (touched.size) {
          if (full || this.fullRounds > 0) await queueRecomputes(tx, touched.all());
          else {
            await this.recompute(tx, touched);
            // recompute marks in a short take: a backlog has just drained
            if (changes.some((c) => c.entity === 'h')) drainedDays = touched.days();
          }
        }
        await forgetChanges(
          tx,
          changes.map((c) => c.seq),
        );
        this.stats.exports++;
        return { n: changes.length, top: changes.at(-1)!.seq };
      })
      .finally(() => {
        if (full) this.fullRounds--;
      });
    if (drainedDays.length) this.compactSoon(drainedDays);
    this.sinceVacuum += taken.n;
    if (drainedDays.length || this.sinceVacuum >= this.vacuumAfterChanges) this.vacuumSoon();
    this.floor = taken.n === size ? (BigInt(taken.top) > BigInt(this.floor) ? taken.top : this.floor) : '0';
    return taken.n;
  }

  /** the roll-ups of the hours a batch touched, recomputed from the rows ClickHouse now holds (domain/metrics/clickhouse-rollup.ts) */
  private async recompute(tx: Db, touched: TouchedHours): Promise<void> {
    const version = await rollupVersion(tx);
    for (const [projectId, hours] of touched.byProject()) {
      const h = recomputeHours(this.analytics.database, projectId, hours, version);
      await this.command(h.sql, h.params);
      const days = [...new Set(hours.map((h) => h.slice(0, 10)))];
      const d = recomputeDays(this.analytics.database, projectId, days, version);
      await this.command(d.sql, d.params);
      // the user roll-up reads the base table for each touched day: about 120 ms for a day of 330,000 rows
      const u = recomputeUserDays(this.analytics.database, projectId, days, version);
      await this.command(u.sql, u.params);
    }
  }

  /** the day partitions waiting to be merged, and the merging now under way */
  private readonly toCompact = new Set<string>();
  private compaction: Promise<void> | null = null;
  private readonly compactedAt = new Map<string, number>();

  /**
   * A backlog exported in takes leaves each day it touched in many parts, every part spanning the
   * whole day, so a FINAL read merges them all on every query until ClickHouse's background merges
   * catch up: 60 s after exporting 11 M rows the store held 102 parts, and a cost histogram took
   * 931 ms against 259 ms once merged. So the drained days are merged whole at once, off the
   * export path (reads and inserts go on meanwhile). Steady exports never get here.
   */
  private compactSoon(days: string[]): void {
    if (this.compactAboveParts <= 0) return;
    for (const d of days) this.toCompact.add(d);
    if (this.compaction) return;
    this.compaction = (async () => {
      while (this.toCompact.size) {
        const batch = [...this.toCompact];
        this.toCompact.clear();
        await this.compact(batch);
      }
    })()
      .catch((e: unknown) =>
        this.log.warn({ err: e }, 'merging the parts a drained backlog left failed; ClickHouse merges them in the background'),
      )
      .finally(() => {
        this.compaction = null;
        // days added while the last round was ending
        if (this.toCompact.size) this.compactSoon([]);
      });
  }

  private async compact(days: string[]): Promise<void> {
    // a day partition's id is its date as digits (PARTITION BY toDate(start_time))
    await this.compactTable(
      EXPORTED.o.table,
      days.map((d) => d.replaceAll('-', '')),
    );
    // the roll-ups are not partitioned (one partition, 'all'): the recomputes of the drain wrote a
    // new version of every group it touched, which FINAL merges on each read until ClickHouse
    // does (after an 11 M backfill the user roll-up held 2.3 M rows in 5 parts, 2.2 M once merged)
    for (const table of Object.values(CH_ROLLUP_TABLES)) await this.compactTable(table, ['all']);
  }

  /** merges each of the table's partitions `ids` held in more than compactAboveParts active parts */
  private async compactTable(name: string, ids: string[]): Promise<void> {
    const { database, cluster } = this.analytics;
    const table = cluster ? `${name}_local` : name;
    const now = Date.now();
    const due = ids.filter((id) => now - (this.compactedAt.get(`${name}/${id}`) ?? 0) >= this.compactEveryMs);
    if (!due.length) return;
    const rs = await this.analytics.client.query({
      query: `SELECT partition_id AS id FROM system.parts WHERE database = {db:String} AND table = {t:String} AND active AND partition_id IN {ids:Array(String)}
        GROUP BY partition_id HAVING count() > {n:UInt32} ORDER BY partition_id`,
      query_params: { db: database, t: table, ids: due, n: this.compactAboveParts },
      format: 'JSONEachRow',
    });
    for (const { id } of await rs.json<{ id: string }>()) {
      if (!/^(\d{8}|all)$/.test(id)) continue;
      await this.analytics.client.command({
        query: `OPTIMIZE TABLE ${database}.${table}${cluster ? ` ON CLUSTER ${cluster}` : ''} PARTITION ID '${id}' FINAL`,
      });
      this.compactedAt.set(`${name}/${id}`, Date.now());
      this.stats.compactedPartitions++;
    }
  }

  private async command(query: string, params: Record<string, unknown>): Promise<void> {
    await this.analytics.client.command({
      query,
      query_params: params,
      clickhouse_settings: this.analytics.cluster ? { distributed_foreground_insert: 1 } : {},
    });
  }

  /** the schema made current once per process (under the start-up lock), shared by the rounds; a failure is tried again */
  private schema: Promise<void> | null = null;

  private ensureSchema(): Promise<void> {
    this.schema ??= this.db
      .exclusively(() =>
        migrateClickHouse(this.analytics, this.log, (fn) => this.db.em().transactional(async (em) => fn(await rollupVersion(kysely(em))))),
      )
      .then(() => {})
      .catch((e: unknown) => {
        this.schema = null;
        throw e;
      });
    return this.schema;
  }

  private async insertRaw(table: string, columns: string[] | null, format: RawFormat, lines: string[]): Promise<void> {
    const body = Buffer.from(`${lines.join('\n')}\n`);
    const { rawInsert, database } = this.analytics;
    if (rawInsert) return rawInsert(`${database}.${table}`, columns, format, body, EXPORT_INSERT_SETTINGS);
    const result = await this.analytics.client.exec({
      query: `INSERT INTO ${database}.${table}${columns ? ` (${columns.join(', ')})` : ''} FORMAT ${format}`,
      clickhouse_settings: EXPORT_INSERT_SETTINGS,
      values: Readable.from([body], { objectMode: false }),
    });
    result.stream.resume();
  }

  private async run(): Promise<void> {
    let failures = 0;
    let size = this.batchSize;
    let idle = this.idleMs;
    while (this.running) {
      let taken = 0;
      try {
        await this.ensureSchema();
        taken = await this.exportOnce(size);
        failures = 0;
      } catch (e) {
        failures++;
        this.stats.failures++;
        this.stats.lastError = (e as Error).message;
        this.log.warn({ err: e, attempt: failures }, 'analytics export failed; the changes stay queued and are sent again');
        await this.pause(backoffMs(failures, RETRY));
        continue;
      }
      // a full batch means more are waiting: take more at once. A 10 M-row store exported in takes of
      // 10,000 rows, 60 s later, held parts that FINAL reads merged at twice the cost of those of
      // takes of 50,000 (a cost histogram: 457 ms against 284, scratch data of two projects)
      if (taken < size) {
        size = this.batchSize;
        // a wake-up (a batch applied here) starts the pauses over: ingestion has begun
        if (await this.pause(taken ? this.idleMs : idle)) idle = this.idleMs;
        else idle = taken ? this.idleMs : Math.min(idle * 2, this.maxIdleMs);
      } else size = Math.min(size * 2, this.maxBatchSize);
    }
  }

  /** resolves true when woken before `ms` */
  private pause(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(t);
        this.wakeUps.delete(wake);
        resolve(woken);
      };
      const wake = () => done(true);
      const t = setTimeout(() => done(false), ms);
      this.wakeUps.add(wake);
    });
  }
}

const HOUR_MS = 3_600_000;
const hourOf = (ms: number) => Math.floor(ms / HOUR_MS);

/** the (project, hour) pairs a batch touched, as ClickHouse's DateTime text */
class TouchedHours {
  private readonly hours = new Map<string, Set<number>>();
  add(projectId: string, ms: number): void {
    let set = this.hours.get(projectId);
    if (!set) {
      set = new Set();
      this.hours.set(projectId, set);
    }
    set.add(hourOf(ms) * HOUR_MS);
  }
  get size(): number {
    return this.hours.size;
  }
  /** the days touched, as yyyy-mm-dd */
  days(): string[] {
    return [...new Set([...this.hours.values()].flatMap((set) => [...set].map((h) => new Date(h).toISOString().slice(0, 10))))];
  }
  all(): { projectId: string; hourMs: number }[] {
    return [...this.hours].flatMap(([projectId, set]) => [...set].map((hourMs) => ({ projectId, hourMs })));
  }
  byProject(): [string, string[]][] {
    return [...this.hours].map(([p, set]) => [
      p,
      [...set].sort((a, b) => a - b).map((h) => new Date(h).toISOString().slice(0, 19).replace('T', ' ')),
    ]);
  }
}

/** per entity, the latest change of each row (its sequence number is the version exported); recompute marks left out */
function latestPerRow(changes: Change[]): Map<ExportedEntity, Map<string, Change>> {
  const out = new Map<ExportedEntity, Map<string, Change>>();
  for (const c of changes) {
    if (c.entity === 'h') continue;
    let m = out.get(c.entity);
    if (!m) {
      m = new Map();
      out.set(c.entity, m);
    }
    const key = `${c.projectId}\u0000${c.id}`;
    const seen = m.get(key);
    if (!seen || BigInt(seen.seq) < BigInt(c.seq)) m.set(key, c);
  }
  return out;
}
