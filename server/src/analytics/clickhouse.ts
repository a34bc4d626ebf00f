// The ClickHouse connection, whichever engine answers: a server or cluster over HTTP through
// @clickhouse/client, or the engine embedded in this process (npm chdb) plugged into the same
// client as its connection, so every statement Tally sends takes one code path. The embedded
// engine is about 550 MB and lives in engines/chdb/ (its own package.json), installed by make
// only when it is needed, so a plain `make run` stays light.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import type { ClickHouseTarget } from '../domain/analytics/target.ts';
import { EmbeddedEngineMissing } from './engine-missing.ts';

export { EmbeddedEngineMissing };

const ENGINE_PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '../../../engines/chdb/package.json');

type ChdbConnectionModule = { createChdbConnection: (opts: { path: string }) => unknown };

function loadChdb(): ChdbConnectionModule {
  const installed = existsSync(join(dirname(ENGINE_PACKAGE), 'node_modules', 'chdb'));
  if (!installed)
    throw new EmbeddedEngineMissing(
      'TALLY_CLICKHOUSE_URL=chdb:… needs the embedded ClickHouse engine, which is not installed: run `make engines` (make run and make test install it when TALLY_CLICKHOUSE_URL starts with chdb:)',
    );
  return createRequire(ENGINE_PACKAGE)('chdb/connection') as ChdbConnectionModule;
}

export interface Analytics {
  client: ClickHouseClient;
  /** the database Tally's tables are in; statements name it (the embedded engine has no per-client default) */
  database: string;
  /** ON CLUSTER name, or null */
  cluster: string | null;
  target: ClickHouseTarget;
}

export function openClickHouse(target: ClickHouseTarget): Analytics {
  const settings = {
    // ISO-8601 text from PostgreSQL's timestamps, as the exporter sends them
    date_time_input_format: 'best_effort' as const,
  };
  const client =
    target.kind === 'server'
      ? createClient({
          url: target.url,
          username: target.username,
          password: target.password,
          database: target.database,
          clickhouse_settings: settings,
          request_timeout: 60_000,
        })
      : createClient({
          // chdb's Connection implements @clickhouse/client's interface (chdb/connection)
          connection: loadChdb().createChdbConnection({ path: target.path }) as never,
          clickhouse_settings: settings,
        });
  return { client, database: target.database, cluster: target.cluster, target };
}
