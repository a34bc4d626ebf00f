// Revisions of what a cache was built from (the models a project sees), kept in this process
// while the database's change notifications reach it, so a request need not read them again.
// The database notifies every change at its commit (LISTEN/NOTIFY); while the listening
// connection is down, or before it is up, nothing is kept and every read goes to the database.
// A read that a change notification overtook is not kept: it may predate the change. And none is
// kept longer than maxAgeMs: where notifications are lost without the connection dropping (a
// pooler in transaction mode between Tally and PostgreSQL passes LISTEN but not what follows), a
// change is still seen within that time.

export class RevisionCache {
  private readonly known = new Map<string, { revision: string; at: number }>();
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  /** bumped by every change and every loss of the notifications: a read in flight across one is not kept */
  private generation = 0;
  private live = false;

  constructor(opts: { maxAgeMs?: number; now?: () => number } = {}) {
    this.maxAgeMs = opts.maxAgeMs ?? 5_000;
    this.now = opts.now ?? (() => performance.now());
  }

  /** whether the notifications arrive, so that reads are kept */
  get isLive(): boolean {
    return this.live;
  }

  /** the notifications arrive (true) or may have been missed (false) */
  setLive(live: boolean): void {
    this.live = live;
    this.generation++;
    this.known.clear();
  }

  /** a change of `scope`'s revision; `everyScope` for one that every key sees (the managed models) */
  changed(scope: string, everyScope = false): void {
    this.generation++;
    if (everyScope) this.known.clear();
    else this.known.delete(scope);
  }

  /** the revision of `key`, kept if the notifications are live, else read */
  async get(key: string, read: () => Promise<string>): Promise<string> {
    const hit = this.live ? this.known.get(key) : undefined;
    if (hit !== undefined && this.now() - hit.at < this.maxAgeMs) return hit.revision;
    const generation = this.generation;
    const at = this.now();
    const revision = await read();
    if (this.live && generation === this.generation) this.known.set(key, { revision, at });
    return revision;
  }
}
