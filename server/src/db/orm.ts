// Opens the database: PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite
// persisted in TALLY_DATA_DIR (or in memory for tests). Migrations run on open.
import { mkdirSync } from 'node:fs';
import { Migrator } from '@mikro-orm/migrations';
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { entities } from './entities.ts';
import { migrationsList } from './migrations/index.ts';
import { namePreparedStatements } from './prepared.ts';
import { lockDataDir } from './embedded-lock.ts';
import { withStartupLock } from './startup-lock.ts';
import { type ListenHandlers, type Listening, listenEmbedded, listenPostgres, type NativeListen } from './listen.ts';

export interface Database {
  orm: MikroORM;
  /** runs start-up work once across instances starting together (db/startup-lock.ts) */
  exclusively<T>(fn: () => Promise<T>): Promise<T>;
  /** a fresh entity manager for one unit of work */
  em(): SqlEntityManager;
  kind: 'postgresql' | 'pglite';
  /** a channel's notifications, and whether they are arriving (db/listen.ts) */
  listen(channel: string, handlers: ListenHandlers): Promise<Listening>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  /** directory for PGlite; 'memory://' for an in-memory database */
  dataDir: string;
  debug?: boolean;
  /** PostgreSQL only: send the marked hot statements as named prepared statements (default true) */
  preparedStatements?: boolean;
  /** PGlite only: its shared_buffers in MB (PostgreSQL's default is 128) */
  pgliteSharedBuffersMb?: number;
  /** told when another instance holds the start-up lock and this one waits */
  onWaitForLock?: () => void;
}

// PGlite's own start parameters (@electric-sql/pglite's defaultStartParams, which a custom list
// replaces rather than extends), followed by Tally's
const PGLITE_START_PARAMS = [
  '--single',
  '-F',
  '-O',
  '-j',
  '-c',
  'search_path=public',
  '-c',
  'exit_on_error=false',
  '-c',
  'log_checkpoints=false',
  '-c',
  'max_worker_processes=0',
  '-c',
  'max_parallel_workers=0',
  '-c',
  'max_parallel_workers_per_gather=0',
  '-c',
  'io_method=sync',
  '-c',
  'max_parallel_maintenance_workers=0',
];

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const common = {
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    debug: opts.debug ?? false,
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: false },
  };
  let orm: MikroORM;
  let kind: Database['kind'];
  let releaseDir: (() => void) | undefined;
  if (opts.databaseUrl) {
    const { MikroORM } = await import('@mikro-orm/postgresql');
    orm = await MikroORM.init({
      ...common,
      clientUrl: opts.databaseUrl,
      pool: { min: 0, max: 10 },
      ...(opts.preparedStatements === false ? {} : { driverOptions: { onPoolCreated: namePreparedStatements } }),
    });
    kind = 'postgresql';
  } else {
    const { MikroORM } = await import('@mikro-orm/pglite');
    if (opts.dataDir !== 'memory://') {
      mkdirSync(opts.dataDir, { recursive: true });
      releaseDir = lockDataDir(opts.dataDir);
    }
    // the WASM heap never shrinks, so every buffer page PostgreSQL ever touches stays resident:
    // shared_buffers is the largest setting behind the embedded server's RSS
    const startParams = [...PGLITE_START_PARAMS, '-c', `shared_buffers=${opts.pgliteSharedBuffersMb ?? 128}MB`];
    try {
      orm = await MikroORM.init({ ...common, dbName: opts.dataDir, driverOptions: { startParams } });
    } catch (e) {
      releaseDir?.();
      throw e;
    }
    kind = 'pglite';
  }
  const em = () => orm.em.fork() as SqlEntityManager;
  // PGlite: one process (the lock file), one connection: nothing to coordinate
  const exclusively =
    kind === 'postgresql'
      ? <T>(fn: () => Promise<T>) => withStartupLock(em().getKysely<unknown>(), opts.onWaitForLock ?? (() => {}), fn)
      : <T>(fn: () => Promise<T>) => fn();
  try {
    await exclusively(() => orm.migrator.up());
  } catch (e) {
    await orm.close(true);
    releaseDir?.();
    throw e;
  }
  const databaseUrl = opts.databaseUrl;
  const listen: Database['listen'] = async (channel, handlers) => {
    if (databaseUrl) return listenPostgres(databaseUrl, channel, handlers);
    const pglite = await (
      orm.driver.getConnection() as unknown as { getNativeClient(): Promise<{ listen: NativeListen }> }
    ).getNativeClient();
    return listenEmbedded((c, cb) => pglite.listen(c, cb), channel, handlers);
  };
  return {
    orm,
    kind,
    exclusively,
    em,
    listen,
    close: async () => {
      await orm.close(true);
      releaseDir?.();
    },
  };
}
