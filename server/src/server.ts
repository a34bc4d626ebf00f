// Assembles a running server from a config: database, start-up work, app, listener.
// main.ts runs it for real; tests and the conformance suite run it in process.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type RequestListener, type Server } from 'node:http';
import { ensureInitialProject, loadManagedModels } from './bootstrap.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/orm.ts';
import { createApp } from './http/app.ts';
import { ingestionStylePaths } from './http/openapi.ts';
import { isUnstablePath, toUnstableBody } from './http/errors.ts';
import { handlers } from './http/handlers/index.ts';
import type { Logger } from './logger.ts';
import type { KeyPair } from './store/projects.ts';
import type { Services } from './app-context.ts';
import { startEventIdPruning } from './background/event-id-pruning.ts';
import { startTraceCountFolding } from './background/trace-count-folding.ts';
import { AlertWorker } from './background/alert-worker.ts';
import { analyzeAsTablesGrow, analyzeIngestionTables } from './store/planner-stats.ts';
import { kysely } from './store/sql.ts';
import { createModelCatalog } from './caches/model-catalog.ts';
import { MODEL_REVISIONS_CHANNEL } from './store/models.ts';
import { backoffMs } from './domain/backoff.ts';
import { resolveKeyring } from './secrets/encryption-keys.ts';
import { createTokenizerPool } from './threads/tokenizer-pool.ts';
import { IngestionLoad } from './domain/ingestion/load.ts';
import { EvaluationWorker } from './background/evaluation-worker.ts';
import { RepriceWorker } from './background/reprice-worker.ts';
import { EvaluationRulesCache } from './caches/evaluation-rules-cache.ts';
import { prepareAnalytics } from './analytics/setup.ts';
import { AnalyticsExporter } from './background/analytics-exporter.ts';
import { feedLag } from './store/analytics-changes.ts';
import { startPostgresRetention } from './background/postgres-retention.ts';
import {
  observationsFromClickHouse,
  observationsOfTraceFromClickHouse,
  listObservationsFromClickHouse,
  listScoresFromClickHouse,
  listTracesFromClickHouse,
  traceScoreIdsFromClickHouse,
  traceTotalsFromClickHouse,
  scoreFromClickHouse,
  tracesFromClickHouse,
} from './analytics/reads.ts';
import type { Analytics } from './analytics/clickhouse.ts';
import { clickHouseMetricsStore } from './analytics/metrics.ts';

/** ingestion's share of the last second above which the evaluation worker keeps to its trickle */
const INGESTION_BUSY_SHARE = 0.5;

export const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

export interface RunningServer {
  /** where a client on this machine reaches it */
  url: string;
  /** the address and port actually bound, e.g. 0.0.0.0:3000 (every IPv4 interface) */
  address: string;
  db: Database;
  services: Services;
  /** keys of a project created on this start (empty database, no TALLY_INIT_*) */
  createdKeys: KeyPair | null;
  /** with TALLY_CLICKHOUSE_URL: the ClickHouse connection and the exporter feeding it */
  analytics: Analytics | null;
  exporter: AnalyticsExporter | null;
  close(): Promise<void>;
}

/**
 * Node's defaults (300 s, checked every 30 s) let a client that sends less than its
 * Content-Length hold a connection for minutes; this closes it with a 408 after the timeout.
 */
export async function listen(
  app: RequestListener,
  port: number,
  host: string,
  requestTimeoutSeconds: number,
  ingestionPaths?: Set<string>,
): Promise<Server> {
  const timeoutMs = requestTimeoutSeconds * 1000;
  const server = createServer(
    { requestTimeout: timeoutMs, headersTimeout: timeoutMs, connectionsCheckingInterval: Math.min(1000, timeoutMs) },
    app,
  );
  // a request Node's parser refuses (bytes a request line may not hold, headers too large, a
  // body that never arrives) gets the same JSON error body as every other answer, not a bare status
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, reason, message] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', `The request did not arrive whole within ${requestTimeoutSeconds} s`]
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'Request Header Fields Too Large', 'The request headers are too large']
          : [400, 'Bad Request', 'The request is not valid HTTP'];
    // the path, if the request line got that far: the ingestion endpoint answers in its own shape
    const path = /^[A-Z]+ ([^ ?]*)/.exec((err as { rawPacket?: Buffer }).rawPacket?.toString('latin1') ?? '')?.[1];
    const body = JSON.stringify(
      status === 400 && path && ingestionPaths?.has(path)
        ? { message: 'Invalid request data', errors: [message] }
        : path && isUnstablePath(path)
          ? toUnstableBody(status, { message })
          : { message, error: 'InvalidRequestError' },
    );
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL' ? new ListenError(err.code, host, port) : err,
      ),
    );
    server.listen(port, host, () => resolve());
  });
  return server;
}

/** the listener could not bind: one line for the operator, naming the address and port */
export class ListenError extends Error {
  readonly code: string;
  constructor(code: string, host: string, port: number) {
    const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    super(
      code === 'EADDRINUSE'
        ? `Cannot listen on ${where}: the port is already in use (another Tally, or set PORT to a free port)`
        : code === 'EACCES'
          ? `Cannot listen on ${where}: permission denied (ports below 1024 need privileges; set PORT)`
          : `Cannot listen on ${where}: the address is not one of this machine's (set TALLY_HOST)`,
    );
    this.code = code;
  }
}

/** where a local client reaches a server bound to `address` (the wildcard addresses by loopback) */
export function localUrl(address: string, port: number): string {
  const host = address === '0.0.0.0' ? '127.0.0.1' : address === '::' ? '[::1]' : address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${port}`;
}

export async function startServer(
  config: Config,
  log: Logger,
  opts: { validateResponses?: boolean; host?: string } = {},
): Promise<RunningServer> {
  const keyring = resolveKeyring(config, log);
  const onWaitForLock = () => log.info('another instance is starting on this database: waiting for its migrations');
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    preparedStatements: config.preparedStatements,
    pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
    onWaitForLock,
  });
  let createdKeys: KeyPair | null;
  let analytics: Analytics | null;
  try {
    createdKeys = await db.exclusively(async () => {
      await loadManagedModels(db.em(), log);
      return ensureInitialProject(db.em(), config, log);
    });
    analytics = await prepareAnalytics(config.clickhouse, db, log);
  } catch (e) {
    await db.close();
    throw e;
  }
  const exporter = analytics ? new AnalyticsExporter(db, analytics, log) : null;
  const models = createModelCatalog();
  const modelNotifications = await db.listen(MODEL_REVISIONS_CHANNEL, {
    payload: (scope) => models.changed(scope),
    live: (live) => models.revisions.setLive(live),
    lost: (err, attempt) =>
      log.warn({ err, attempt }, 'the database notifications connection was lost; GET /models reads revisions until it is back'),
    retryMs: (attempt) => backoffMs(attempt, { baseMs: 250, maxMs: 10_000, jitter: 'half' }),
  });
  const tokenizers = createTokenizerPool({ size: config.tokenizerThreads, idleMs: config.tokenizerIdleMs });
  let worker: EvaluationWorker | null = null;
  let repricer: RepriceWorker | null = null;
  const ingestionLoad = new IngestionLoad();
  const services: Services = {
    version: VERSION,
    models,
    tokenizers,
    keyring,
    egress: config.llmAllowedHosts,
    alerts: { minIntervalSeconds: config.alertsMinIntervalSeconds },
    llmTimeoutMs: config.llmTimeoutMs,
    // only where the ingestion statements are prepared (cached plans); PGlite plans every statement anew
    tableGrowth:
      db.kind === 'postgresql' && config.preparedStatements !== false
        ? analyzeAsTablesGrow(
            () => analyzeIngestionTables(kysely(db.em())),
            (err) => log.warn({ err }, 'analysing the ingestion tables failed; autovacuum will do it'),
          )
        : undefined,
    analytics: exporter
      ? {
          changed: () => exporter.wake(),
          metrics: analytics ? clickHouseMetricsStore(analytics) : undefined,
          archive:
            analytics && config.postgresRetentionDays > 0
              ? {
                  observations: (p, ids) => observationsFromClickHouse(analytics!, p, ids),
                  observationsOfTrace: (p, t) => observationsOfTraceFromClickHouse(analytics!, p, t),
                  traces: (p, ids) => tracesFromClickHouse(analytics!, p, ids),
                  score: (p, id) => scoreFromClickHouse(analytics!, p, id),
                  listObservations: (p, f, page, limit) => listObservationsFromClickHouse(analytics!, p, f, page, limit),
                  listScores: (p, f, page, limit) => listScoresFromClickHouse(analytics!, p, f, page, limit),
                  listTraces: (p, f, o, page, limit) => listTracesFromClickHouse(analytics!, p, f, o, page, limit),
                  traceTotals: (p, ids) => traceTotalsFromClickHouse(analytics!, p, ids),
                  traceScoreIds: (p, ids) => traceScoreIdsFromClickHouse(analytics!, p, ids),
                  retentionDays: config.postgresRetentionDays,
                }
              : undefined,
          lag: async () => {
            const lag = await feedLag(kysely(db.em()));
            return { lagRows: lag.rows, lagSeconds: lag.oldest ? Math.max(0, (Date.now() - lag.oldest.getTime()) / 1000) : 0 };
          },
        }
      : undefined,
    reprice: { jobCreated: () => repricer?.wake() },
    evaluation: {
      rules: new EvaluationRulesCache(),
      jobsEnqueued: () => worker?.wake(),
      load: ingestionLoad,
    },
  };
  if (config.evalConcurrency > 0) {
    worker = new EvaluationWorker(db, services, log, {
      concurrency: config.evalConcurrency,
      retryBaseMs: config.evalRetryBaseMs,
      ingestionBusy: () => ingestionLoad.share() >= INGESTION_BUSY_SHARE,
    });
  }
  if (config.repriceJobs) repricer = new RepriceWorker(db, services, log, { batchesInFlight: config.repriceInFlight });
  const { app } = await createApp({ db, log, services, handlers, validateResponses: opts.validateResponses });
  let server: Server;
  try {
    server = await listen(app, config.port, opts.host ?? config.host, config.requestTimeoutSeconds, ingestionStylePaths());
  } catch (e) {
    // nothing started may outlive a failed start: the worker threads and the database's lock
    await tokenizers.close();
    await services.tableGrowth?.idle();
    await analytics?.client.close();
    await db.close();
    throw e;
  }
  const { port, address } = server.address() as AddressInfo;
  const stopPruning = config.eventIdRetentionDays > 0 ? startEventIdPruning(db, config.eventIdRetentionDays, log) : async () => {};
  const stopFolding = startTraceCountFolding(db, log);
  const alerts = config.alerts ? new AlertWorker(db, services, log) : null;
  alerts?.start();
  worker?.start();
  exporter?.start();
  repricer?.start();
  const stopRetention =
    analytics && config.postgresRetentionDays > 0 ? startPostgresRetention(db, config.postgresRetentionDays, log) : null;
  return {
    url: localUrl(address, port),
    address: `${address.includes(':') ? `[${address}]` : address}:${port}`,
    db,
    services,
    createdKeys,
    analytics,
    exporter,
    async close() {
      await stopPruning();
      await stopFolding();
      await alerts?.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await worker?.stop();
      await repricer?.stop();
      await stopRetention?.();
      await exporter?.stop();
      await analytics?.client.close();
      server.closeAllConnections?.();
      await tokenizers.close();
      await services.tableGrowth?.idle();
      await modelNotifications.stop();
      await db.close();
    },
  };
}
