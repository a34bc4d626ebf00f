// Start-up work that must run once however many instances start together: migrations, the
// managed model sync, the first project. On PostgreSQL it runs under a session advisory lock on
// a connection held for the purpose; the others wait on it, then find the work done. Without it
// two replicas starting on an empty database both ran CREATE TABLE, and one exited on
// `relation "mikro_orm_migrations" already exists`. A process that dies releases the lock with
// its session, so a killed start-up never blocks the next.
import { sql, type Kysely } from 'kysely';

/** pg_advisory_lock's key: 'tallysup' in ASCII, a number no other Tally lock uses */
export const STARTUP_LOCK_KEY = 0x74616c6c79737570n;

export async function withStartupLock<T>(db: Kysely<unknown>, onWait: () => void, fn: () => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    const key = STARTUP_LOCK_KEY.toString();
    const { rows } = await sql<{ got: boolean }>`select pg_try_advisory_lock(${key}::bigint) as got`.execute(conn);
    if (!rows[0]?.got) {
      onWait();
      await sql`select pg_advisory_lock(${key}::bigint)`.execute(conn);
    }
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${key}::bigint)`.execute(conn);
    }
  });
}
