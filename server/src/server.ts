// Assembles a running server from a config: database, start-up work, app, listener.
// main.ts runs it for real; tests and the conformance suite run it in process.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type RequestListener, type Server } from 'node:http';
import { ensureInitialProject, loadManagedModels } from './bootstrap.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/orm.ts';
import { createApp } from './http/app.ts';
import { handlers } from './http/handlers/index.ts';
import type { Logger } from './logger.ts';
import type { KeyPair } from './store/projects.ts';
import type { Services } from './services.ts';
import { startEventIdPruning } from './services/event-id-pruning.ts';
import { createModelCatalog } from './services/model-catalog.ts';
import { createTokenizerPool } from './workers/tokenizer-pool.ts';

export const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

export interface RunningServer {
  url: string;
  db: Database;
  services: Services;
  /** keys of a project created on this start (empty database, no TALLY_INIT_*) */
  createdKeys: KeyPair | null;
  close(): Promise<void>;
}

/**
 * Node's defaults (300 s, checked every 30 s) let a client that sends less than its
 * Content-Length hold a connection for minutes; this closes it with a 408 after the timeout.
 */
export async function listen(app: RequestListener, port: number, host: string, requestTimeoutSeconds: number): Promise<Server> {
  const timeoutMs = requestTimeoutSeconds * 1000;
  const server = createServer({ requestTimeout: timeoutMs, headersTimeout: timeoutMs, connectionsCheckingInterval: Math.min(1000, timeoutMs) }, app);
  await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
  return server;
}

export async function startServer(config: Config, log: Logger, opts: { validateResponses?: boolean; host?: string } = {}): Promise<RunningServer> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, preparedStatements: config.preparedStatements, pgliteSharedBuffersMb: config.pgliteSharedBuffersMb });
  await loadManagedModels(db.em(), log);
  const createdKeys = await ensureInitialProject(db.em(), config, log);
  const models = createModelCatalog();
  const tokenizers = createTokenizerPool({ size: config.tokenizerThreads });
  const services: Services = { version: VERSION, models, tokenizers };
  const { app } = await createApp({ db, log, services, handlers, validateResponses: opts.validateResponses });
  const server = await listen(app, config.port, opts.host ?? '0.0.0.0', config.requestTimeoutSeconds);
  const { port } = server.address() as AddressInfo;
  const stopPruning = config.eventIdRetentionDays > 0 ? startEventIdPruning(db, config.eventIdRetentionDays, log) : async () => {};
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    services,
    createdKeys,
    async close() {
      await stopPruning();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      await tokenizers.close();
      await db.close();
    },
  };
}
