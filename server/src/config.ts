// Configuration from the environment, validated once at start: a bad value stops the
// process with a message naming the variable instead of failing later mid-request.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { AllowListError, parseAllowList, type AllowList } from './domain/llm/egress.ts';
import { AnalyticsTargetError, type ClickHouseTarget, parseClickHouseTarget } from './domain/analytics/target.ts';

export interface Config {
  port: number;
  /** TALLY_HOST: the address the HTTP server binds (0.0.0.0: every IPv4 interface, :: every interface) */
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  encryptionKey: Buffer | null;
  /** the key before a rotation: still decrypts, never encrypts (`make cli ARGS="connections reencrypt"`) */
  encryptionKeyPrevious: Buffer | null;
  /** TALLY_LLM_ALLOWED_HOSTS: hosts, addresses and networks a connection's baseURL may reach beyond the public internet */
  llmAllowedHosts: AllowList;
  /** TALLY_LLM_TIMEOUT_MS: how long one call to an LLM provider may take */
  llmTimeoutMs: number;
  /** TALLY_EVAL_CONCURRENCY: evaluation jobs this process runs at once (0: it runs none) */
  evalConcurrency: number;
  /** TALLY_REPRICE_JOBS: whether this process runs reprice jobs (`off`: other instances do) */
  repriceJobs: boolean;
  /** TALLY_REPRICE_IN_FLIGHT: a reprice job's batches in flight (2 reads the next while one writes) */
  repriceInFlight: 1 | 2;
  /** TALLY_ALERTS: whether this process evaluates spend alerts and sends their webhooks (`off`: other instances do) */
  alerts: boolean;
  /** TALLY_ALERTS_MIN_INTERVAL_SECONDS: the shortest interval an alert may ask for (tests lower it) */
  alertsMinIntervalSeconds: number;
  /** TALLY_EVAL_RETRY_BASE_MS: the first retry's delay after a retryable provider failure */
  evalRetryBaseMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  initPublicKey: string | null;
  initSecretKey: string | null;
  /** named prepared statements for the ingestion hot path (off behind PgBouncer < 1.21 in transaction mode) */
  preparedStatements: boolean;
  /** worker threads that count tokens of large inputs; each holds its own encoders (~35 MB a thread, ~30 MB more with all three vocabularies) */
  tokenizerThreads: number;
  /** a tokenizer thread without a request for this long is stopped, its encoders' memory given back; 0 keeps them */
  tokenizerIdleMs: number;
  /** days an applied event id is remembered (replays within it are no-ops); 0 = for ever */
  eventIdRetentionDays: number;
  /** seconds a request may take to arrive whole (headers and body) before its connection is closed */
  requestTimeoutSeconds: number;
  /** embedded database only: PostgreSQL's shared_buffers inside PGlite, in MB */
  pgliteSharedBuffersMb: number;
  /** TALLY_HEAP_GROWTH_PERCENT: V8's heap may grow to (1 + p/100) × the live data before a full collection; 0 leaves V8's own heuristic */
  heapGrowthPercent: number;
  /** TALLY_CLICKHOUSE_URL (+ TALLY_CLICKHOUSE_CLUSTER): the analytics store; null keeps analytics in PostgreSQL */
  clickhouse: ClickHouseTarget | null;
  /** TALLY_POSTGRES_RETENTION_DAYS (ClickHouse only): exported rows older than this leave PostgreSQL; 0 keeps them */
  postgresRetentionDays: number;
}

/**
 * One per core beyond the first (the event loop's), at most 2 like Langfuse's default pool: on a
 * 2-core machine a second thread counted no faster (933 vs 948 events/s, all tokenised) and
 * held 290 MB more.
 */
export const defaultTokenizerThreads = (cores = availableParallelism()) => Math.max(1, Math.min(2, cores - 1));

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`PORT must be an integer 0..65535, got "${env.PORT}"`);

  const host = (env.TALLY_HOST ?? '').trim() || '0.0.0.0';
  // an address, or a name the resolver turns into one (localhost); no scheme, port or brackets
  if (!isIP(host) && !/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/i.test(host))
    problems.push(`TALLY_HOST must be an IP address or a host name (0.0.0.0, ::, 127.0.0.1, localhost), got "${env.TALLY_HOST}"`);

  const databaseUrl = env.DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) problems.push('DATABASE_URL must start with postgres:// or postgresql://');

  let encryptionKey: Buffer | null = null;
  if (env.ENCRYPTION_KEY) {
    if (!/^[0-9a-fA-F]{64}$/.test(env.ENCRYPTION_KEY))
      problems.push('ENCRYPTION_KEY must be 64 hex characters (generate one with `openssl rand -hex 32`)');
    else encryptionKey = Buffer.from(env.ENCRYPTION_KEY, 'hex');
  }
  let encryptionKeyPrevious: Buffer | null = null;
  if (env.ENCRYPTION_KEY_PREVIOUS) {
    if (!/^[0-9a-fA-F]{64}$/.test(env.ENCRYPTION_KEY_PREVIOUS))
      problems.push('ENCRYPTION_KEY_PREVIOUS must be 64 hex characters (the ENCRYPTION_KEY used before the rotation)');
    else encryptionKeyPrevious = Buffer.from(env.ENCRYPTION_KEY_PREVIOUS, 'hex');
  }

  const logLevel = (env.LOG_LEVEL ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const initPublicKey = env.TALLY_INIT_PUBLIC_KEY || null;
  const initSecretKey = env.TALLY_INIT_SECRET_KEY || null;
  if (Boolean(initPublicKey) !== Boolean(initSecretKey))
    problems.push('TALLY_INIT_PUBLIC_KEY and TALLY_INIT_SECRET_KEY must be set together');
  if (initPublicKey && !initPublicKey.startsWith('pk-')) problems.push('TALLY_INIT_PUBLIC_KEY must start with "pk-"');
  if (initSecretKey && !initSecretKey.startsWith('sk-')) problems.push('TALLY_INIT_SECRET_KEY must start with "sk-"');

  const prepared = (env.TALLY_DB_PREPARED_STATEMENTS ?? 'true').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(prepared)) problems.push('TALLY_DB_PREPARED_STATEMENTS must be true or false');

  const threads = env.TALLY_TOKENIZER_THREADS ? Number(env.TALLY_TOKENIZER_THREADS) : defaultTokenizerThreads();
  if (!Number.isInteger(threads) || threads < 1 || threads > 64)
    problems.push(`TALLY_TOKENIZER_THREADS must be an integer 1..64, got "${env.TALLY_TOKENIZER_THREADS}"`);

  const tokenizerIdle = Number(env.TALLY_TOKENIZER_IDLE_SECONDS ?? 300);
  if (!Number.isFinite(tokenizerIdle) || tokenizerIdle < 0)
    problems.push(
      `TALLY_TOKENIZER_IDLE_SECONDS must be a number of seconds (0 keeps the threads), got "${env.TALLY_TOKENIZER_IDLE_SECONDS}"`,
    );

  const retention = Number(env.TALLY_EVENT_ID_RETENTION_DAYS ?? 30);
  if (!Number.isInteger(retention) || retention < 0)
    problems.push(
      `TALLY_EVENT_ID_RETENTION_DAYS must be a whole number of days (0 keeps them for ever), got "${env.TALLY_EVENT_ID_RETENTION_DAYS}"`,
    );

  const requestTimeout = Number(env.TALLY_REQUEST_TIMEOUT_SECONDS ?? 60);
  if (!Number.isInteger(requestTimeout) || requestTimeout < 1 || requestTimeout > 3600)
    problems.push(`TALLY_REQUEST_TIMEOUT_SECONDS must be a whole number of seconds 1..3600, got "${env.TALLY_REQUEST_TIMEOUT_SECONDS}"`);

  const sharedBuffers = Number(env.TALLY_PGLITE_SHARED_BUFFERS_MB ?? 32);
  if (!Number.isInteger(sharedBuffers) || sharedBuffers < 1 || sharedBuffers > 4096)
    problems.push(`TALLY_PGLITE_SHARED_BUFFERS_MB must be a whole number of MB 1..4096, got "${env.TALLY_PGLITE_SHARED_BUFFERS_MB}"`);

  const llmTimeoutMs = Number(env.TALLY_LLM_TIMEOUT_MS ?? 120_000);
  if (!Number.isInteger(llmTimeoutMs) || llmTimeoutMs < 100 || llmTimeoutMs > 3_600_000)
    problems.push(`TALLY_LLM_TIMEOUT_MS must be a whole number of milliseconds 100..3600000, got "${env.TALLY_LLM_TIMEOUT_MS}"`);

  const repriceRaw = (env.TALLY_REPRICE_JOBS ?? 'on').trim().toLowerCase();
  if (!['on', 'off'].includes(repriceRaw)) problems.push(`TALLY_REPRICE_JOBS must be on or off, got "${env.TALLY_REPRICE_JOBS}"`);
  const alertsRaw = (env.TALLY_ALERTS ?? 'on').trim().toLowerCase();
  if (!['on', 'off'].includes(alertsRaw)) problems.push(`TALLY_ALERTS must be on or off, got "${env.TALLY_ALERTS}"`);
  const minIntervalRaw = (env.TALLY_ALERTS_MIN_INTERVAL_SECONDS ?? '60').trim();
  if (!/^[1-9][0-9]{0,5}$/.test(minIntervalRaw))
    problems.push(
      `TALLY_ALERTS_MIN_INTERVAL_SECONDS must be a whole number of seconds from 1, got "${env.TALLY_ALERTS_MIN_INTERVAL_SECONDS}"`,
    );
  const inFlightRaw = (env.TALLY_REPRICE_IN_FLIGHT ?? '2').trim();
  if (!['1', '2'].includes(inFlightRaw)) problems.push(`TALLY_REPRICE_IN_FLIGHT must be 1 or 2, got "${env.TALLY_REPRICE_IN_FLIGHT}"`);
  const evalConcurrency = Number(env.TALLY_EVAL_CONCURRENCY ?? 8);
  if (!Number.isInteger(evalConcurrency) || evalConcurrency < 0 || evalConcurrency > 64)
    problems.push(`TALLY_EVAL_CONCURRENCY must be a whole number 0..64, got "${env.TALLY_EVAL_CONCURRENCY}"`);
  const evalRetryBaseMs = Number(env.TALLY_EVAL_RETRY_BASE_MS ?? 15_000);
  if (!Number.isInteger(evalRetryBaseMs) || evalRetryBaseMs < 10 || evalRetryBaseMs > 3_600_000)
    problems.push(`TALLY_EVAL_RETRY_BASE_MS must be a whole number of milliseconds 10..3600000, got "${env.TALLY_EVAL_RETRY_BASE_MS}"`);

  const heapGrowthPercent = Number(env.TALLY_HEAP_GROWTH_PERCENT ?? 100);
  if (!Number.isInteger(heapGrowthPercent) || heapGrowthPercent < 0 || heapGrowthPercent > 1000)
    problems.push(
      `TALLY_HEAP_GROWTH_PERCENT must be a whole number 0..1000 (0: V8's own heuristic), got "${env.TALLY_HEAP_GROWTH_PERCENT}"`,
    );

  let llmAllowedHosts: AllowList = parseAllowList('');
  try {
    llmAllowedHosts = parseAllowList(env.TALLY_LLM_ALLOWED_HOSTS);
    const egress = (env.TALLY_LLM_EGRESS ?? 'public').toLowerCase();
    if (egress !== 'public' && egress !== 'allowlist')
      problems.push(
        `TALLY_LLM_EGRESS must be public (the internet and TALLY_LLM_ALLOWED_HOSTS) or allowlist (TALLY_LLM_ALLOWED_HOSTS only), got "${env.TALLY_LLM_EGRESS}"`,
      );
    llmAllowedHosts.onlyListed = egress === 'allowlist';
  } catch (e) {
    if (!(e instanceof AllowListError)) throw e;
    problems.push(e.message);
  }

  let clickhouse: ClickHouseTarget | null = null;
  try {
    clickhouse = parseClickHouseTarget(env.TALLY_CLICKHOUSE_URL, env.TALLY_CLICKHOUSE_CLUSTER, process.cwd());
  } catch (e) {
    if (!(e instanceof AnalyticsTargetError)) throw e;
    problems.push(e.message);
  }

  const postgresRetentionDays = Number(env.TALLY_POSTGRES_RETENTION_DAYS ?? 0);
  if (!Number.isInteger(postgresRetentionDays) || postgresRetentionDays < 0)
    problems.push(
      `TALLY_POSTGRES_RETENTION_DAYS must be a whole number of days (0 keeps every row), got "${env.TALLY_POSTGRES_RETENTION_DAYS}"`,
    );
  else if (postgresRetentionDays > 0 && !env.TALLY_CLICKHOUSE_URL?.trim())
    problems.push('TALLY_POSTGRES_RETENTION_DAYS needs TALLY_CLICKHOUSE_URL: without ClickHouse, PostgreSQL holds the only copy');

  if (problems.length) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return {
    port,
    host,
    databaseUrl,
    dataDir: resolve(env.TALLY_DATA_DIR || './.data'),
    encryptionKey,
    encryptionKeyPrevious,
    logLevel: logLevel as Config['logLevel'],
    initPublicKey,
    initSecretKey,
    preparedStatements: prepared === 'true' || prepared === '1',
    tokenizerThreads: threads,
    tokenizerIdleMs: tokenizerIdle * 1000,
    eventIdRetentionDays: retention,
    requestTimeoutSeconds: requestTimeout,
    pgliteSharedBuffersMb: sharedBuffers,
    llmAllowedHosts,
    llmTimeoutMs,
    evalConcurrency,
    repriceJobs: repriceRaw !== 'off',
    repriceInFlight: inFlightRaw === '1' ? 1 : 2,
    alerts: alertsRaw !== 'off',
    alertsMinIntervalSeconds: Number(minIntervalRaw) || 60,
    evalRetryBaseMs,
    heapGrowthPercent,
    clickhouse,
    postgresRetentionDays,
  };
}
