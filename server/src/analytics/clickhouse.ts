// The ClickHouse connection, whichever engine answers: a server or cluster over HTTP through
// @clickhouse/client, or the engine embedded in this process (npm chdb) plugged into the same
// client as its connection, so every statement Tally sends takes one code path. The embedded
// engine is about 550 MB and lives in engines/chdb/ (its own package.json), installed by make
// only when it is needed, so a plain `make run` stays light.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ClickHouseClient, type Logger as ClientLogger, createClient, type LogParams, type WarnLogParams } from '@clickhouse/client';
import type { ClickHouseTarget } from '../domain/analytics/target.ts';
import type { Logger } from '../logger.ts';
import { EmbeddedEngineMissing } from './engine-missing.ts';

export { EmbeddedEngineMissing };

const ENGINE_PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '../../../engines/chdb/package.json');

type ChdbConnectionModule = { createChdbConnection: (opts: { path: string }) => unknown };
type ChdbModule = { Session: new (path: string, opts: { connectionArgs: string[] }) => { close(): void } };

/**
 * The embedded engine's server configuration, given when it starts. ClickHouse's memory worker
 * reads the process's memory every 100 ms by default, to correct its memory tracker: 0.5% of a
 * core of an otherwise idle server (bench/idle.ts); once a second is ample for a tracker that
 * guards a limit Tally does not set.
 */
const ENGINE_ARGS = ['--memory_worker_period_ms=1000'];

function loadChdb(): ChdbConnectionModule & ChdbModule {
  const installed = existsSync(join(dirname(ENGINE_PACKAGE), 'node_modules', 'chdb'));
  if (!installed)
    throw new EmbeddedEngineMissing(
      'TALLY_CLICKHOUSE_URL=chdb:… needs the embedded ClickHouse engine, which is not installed: run `make engines` (make run and make test install it when TALLY_CLICKHOUSE_URL starts with chdb:)',
    );
  const require = createRequire(ENGINE_PACKAGE);
  return { ...(require('chdb/connection') as ChdbConnectionModule), Session: (require('chdb') as ChdbModule).Session };
}

export interface Analytics {
  client: ClickHouseClient;
  /** the database Tally's tables are in; statements name it (the embedded engine has no per-client default) */
  database: string;
  /** ON CLUSTER name, or null */
  cluster: string | null;
  target: ClickHouseTarget;
  /**
   * The embedded engine's own insert: the payload handed to it as bytes (chdb's rawInsert). Its
   * Connection's insert makes the payload part of the statement's text; the exporter drained
   * 33,194-36,062 rows/s this way against 30,012-30,920 (bench/analytics-export.ts, three
   * alternating pairs)
   */
  rawInsert?: (
    table: string,
    columns: string[] | null,
    format: RawFormat,
    values: Buffer,
    settings: Record<string, string>,
  ) => Promise<void>;
}

/** the insert formats Tally sends */
export type RawFormat = 'JSONEachRow' | 'JSONCompactEachRow';

/** what Tally uses of chdb's Connection beyond @clickhouse/client's interface */
interface ChdbConnection {
  chdb: {
    rawInsert(p: {
      table: string;
      columns?: string[];
      values: Buffer;
      format: RawFormat;
      settings?: Record<string, string>;
    }): Promise<unknown>;
  };
}

/**
 * The client's log lines through the server's logger. Its own logger writes several lines of text
 * to the console per failed request (during an outage, one every retry), outside the server's JSON
 * log. Its errors go out at debug: the caller that sees the failure logs it once with what it
 * means (the exporter: "analytics export failed; the changes stay queued"). Its warnings (a
 * setting overridden by the URL, say) stay warnings. Without a logger (tests, benches) it is quiet.
 */
function clientLogger(log: Logger | undefined): new () => ClientLogger {
  const sink = log?.child({ component: '@clickhouse/client' });
  const write = (level: 'trace' | 'debug' | 'warn') => (p: LogParams | WarnLogParams) =>
    sink?.[level]({ module: p.module, ...p.args, ...('err' in p && p.err ? { err: p.err } : {}) }, p.message);
  return class {
    trace = write('trace');
    debug = write('trace');
    info = write('debug');
    warn = write('warn');
    error = write('debug');
  };
}

export function openClickHouse(target: ClickHouseTarget, log?: Logger): Analytics {
  const logging = { LoggerClass: clientLogger(log) };
  const settings = {
    // ISO-8601 text from PostgreSQL's timestamps, as the exporter sends them
    date_time_input_format: 'best_effort' as const,
  };
  if (target.kind === 'server') {
    const client = createClient({
      url: target.url,
      username: target.username,
      password: target.password,
      database: target.database,
      clickhouse_settings: settings,
      request_timeout: 60_000,
      log: logging,
    });
    return { client, database: target.database, cluster: target.cluster, target };
  }
  const chdb = loadChdb();
  // chdb starts one engine per process, with the arguments of the first session at its directory
  // (its Connection takes none): this session starts it with ENGINE_ARGS and is kept open for it
  const engine = new chdb.Session(target.path, { connectionArgs: ENGINE_ARGS });
  let connection: ChdbConnection;
  try {
    connection = chdb.createChdbConnection({ path: target.path }) as unknown as ChdbConnection;
  } catch (e) {
    engine.close();
    throw e;
  }
  const client = createClient({ connection: connection as never, clickhouse_settings: settings, log: logging });
  const close = client.close.bind(client);
  client.close = async () => {
    await close();
    engine.close();
  };
  return {
    // chdb's Connection implements @clickhouse/client's interface (chdb/connection)
    client,
    database: target.database,
    cluster: target.cluster,
    target,
    rawInsert: async (table, columns, format, values, s) => {
      await connection.chdb.rawInsert({ table, ...(columns ? { columns } : {}), values, format, settings: { ...settings, ...s } });
    },
  };
}
