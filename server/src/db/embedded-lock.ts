// The embedded database is one PostgreSQL (PGlite) inside this process: a second process opening
// the same directory would run its own copy of the server over the same files and corrupt them.
// A lock file holding the owner's pid keeps it to one process and names the one that has it.
// A pid that no longer runs (kill -9, a crash) leaves a stale file, which the next start takes over.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export class DatabaseInUseError extends Error {}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // it runs, as another user
  }
};

/** takes the directory's lock, or throws DatabaseInUseError naming the process that holds it; returns the release */
export function lockDataDir(dir: string): () => void {
  const file = join(dir, 'tally.lock');
  const me = `${process.pid} ${hostname()}\n`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, me);
      closeSync(fd);
      const release = () => {
        try {
          if (readFileSync(file, 'utf8') === me) unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release); // a process.exit() that skips close()
      return release;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let held = '';
    try {
      held = readFileSync(file, 'utf8');
    } catch {
      /* removed meanwhile: try again */
    }
    const [pidText, host] = held.trim().split(' ');
    const pid = Number(pidText);
    // another machine's pid cannot be checked; a shared volume with a live owner elsewhere is the
    // operator's to prevent (one replica), and a stale file from a previous container must not block
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && host === hostname() && alive(pid)) {
      throw new DatabaseInUseError(
        `The embedded database in ${dir} is in use by another process (pid ${pid}). It allows one process at a time: stop that one, give this one its own TALLY_DATA_DIR, or run several instances on PostgreSQL (DATABASE_URL).`,
      );
    }
    try {
      unlinkSync(file);
    } catch {
      /* someone else took it over: the next attempt finds out */
    }
  }
  throw new DatabaseInUseError(`The embedded database in ${dir} is being opened by another process at the same moment; try again.`);
}
