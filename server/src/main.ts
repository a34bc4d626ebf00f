// `make run`: serve the API. Exits with a clear message on bad configuration.
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { ListenError, startServer } from './server.ts';
import { DatabaseInUseError } from './db/embedded-lock.ts';
import { EmbeddedEngineMissing } from './analytics/engine-missing.ts';

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(2);
  }
  throw e;
}
// Ingestion allocates ~45 KB per event that dies within a batch. Left to its own heuristic, V8
// let the heap grow to ~4× the live data (65 MB) before a full collection: 648-684 MB peak RSS in
// make bench's ingestion run. Growth capped at 2× kept it at 526-541 MB for 6-14% more CPU per
// event (bench runs of 2026-11-23). Flags are process-wide: the tokenizer threads follow it.
if (config.heapGrowthPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
const log = createLogger(config.logLevel);
const started = Date.now();
let server: Awaited<ReturnType<typeof startServer>>;
try {
  server = await startServer(config, log);
} catch (e) {
  if (e instanceof ListenError || e instanceof DatabaseInUseError || e instanceof EmbeddedEngineMissing) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
log.info(
  {
    listening: server.address,
    url: server.url,
    database: server.db.kind,
    dataDir: server.db.kind === 'pglite' ? config.dataDir : undefined,
    ms: Date.now() - started,
  },
  'Tally is listening',
);
if (server.createdKeys) {
  // printed once, to the terminal only: the secret is not stored in plain text anywhere
  console.log(
    `\nCreated a local project. Its API keys (shown only now):\n  public key: ${server.createdKeys.publicKey}\n  secret key: ${server.createdKeys.secretKey}\n` +
      `Sign in to the console at ${server.url}/ with them, or try: curl -u ${server.createdKeys.publicKey}:<secret key> ${server.url}/api/public/models\n`,
  );
}
const stop = async (signal: string) => {
  log.info({ signal }, 'shutting down');
  await server.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
