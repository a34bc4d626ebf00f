// Opens the database: PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite
// persisted in TALLY_DATA_DIR (or in memory for tests). Migrations run on open.
import { mkdirSync } from 'node:fs';
import { Migrator } from '@mikro-orm/migrations';
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { entities } from './entities.ts';
import { migrationsList } from './migrations/index.ts';
import { namePreparedStatements } from './prepared.ts';

export interface Database {
  orm: MikroORM;
  /** a fresh entity manager for one unit of work */
  em(): SqlEntityManager;
  kind: 'postgresql' | 'pglite';
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  /** directory for PGlite; 'memory://' for an in-memory database */
  dataDir: string;
  debug?: boolean;
  /** PostgreSQL only: send the marked hot statements as named prepared statements (default true) */
  preparedStatements?: boolean;
}

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
  if (opts.databaseUrl) {
    const { MikroORM } = await import('@mikro-orm/postgresql');
    orm = await MikroORM.init({ ...common, clientUrl: opts.databaseUrl, pool: { min: 0, max: 10 },
      ...(opts.preparedStatements === false ? {} : { driverOptions: { onPoolCreated: namePreparedStatements } }) });
    kind = 'postgresql';
  } else {
    const { MikroORM } = await import('@mikro-orm/pglite');
    if (opts.dataDir !== 'memory://') mkdirSync(opts.dataDir, { recursive: true });
    orm = await MikroORM.init({ ...common, dbName: opts.dataDir });
    kind = 'pglite';
  }
  await orm.migrator.up();
  return {
    orm,
    kind,
    em: () => orm.em.fork() as SqlEntityManager,
    close: () => orm.close(true),
  };
}
