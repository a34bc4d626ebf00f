// A channel's notifications (PostgreSQL's LISTEN/NOTIFY), each payload handed to `onPayload`,
// and whether they are arriving: on PostgreSQL a connection of its own (the pool's connections
// come and go), re-opened with back-off when it drops, `onLive(false)` as soon as it is lost
// (a notification may have been missed) and `onLive(true)` once it listens again. PGlite is one
// process's: its own notifications arrive from its own instance.
import pg from 'pg';

export interface Listening {
  stop(): Promise<void>;
}

export interface ListenHandlers {
  payload(payload: string): void;
  /** the notifications arrive (true) or may have been missed (false) */
  live(live: boolean): void;
  /** the connection was lost or could not listen (attempt: failures in a row) */
  lost(err: unknown, attempt: number): void;
  /** the pause before attempt `attempt` to listen again */
  retryMs(attempt: number): number;
}

export type NativeListen = (channel: string, cb: (payload: string) => void) => Promise<() => Promise<void>>;

export async function listenPostgres(url: string, channel: string, h: ListenHandlers): Promise<Listening> {
  let stopped = false;
  let client: pg.Client | null = null;
  let failures = 0;
  let retry: NodeJS.Timeout | null = null;

  const lost = (err: unknown) => {
    h.live(false);
    if (stopped) return;
    h.lost(err, ++failures);
    client?.removeAllListeners();
    client?.end().catch(() => {});
    client = null;
    retry = setTimeout(() => void connect(), h.retryMs(failures));
    retry.unref();
  };

  const connect = async () => {
    retry = null;
    if (stopped) return;
    const c = new pg.Client({ connectionString: url, application_name: 'tally-notifications' });
    client = c;
    c.on('notification', (n) => {
      if (n.channel === channel && n.payload !== undefined) h.payload(n.payload);
    });
    c.on('error', (err) => {
      if (client === c) lost(err);
    });
    c.on('end', () => {
      if (client === c) lost(new Error('connection ended'));
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (client !== c) return;
      failures = 0;
      h.live(true);
    } catch (err) {
      if (client === c) lost(err);
    }
  };

  await connect();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      h.live(false);
      if (c) {
        c.removeAllListeners();
        await c.end().catch(() => {});
      }
    },
  };
}

export async function listenEmbedded(listen: NativeListen, channel: string, h: ListenHandlers): Promise<Listening> {
  const unlisten = await listen(channel, (p) => h.payload(p));
  h.live(true);
  return {
    async stop() {
      h.live(false);
      await unlisten().catch(() => {});
    },
  };
}
