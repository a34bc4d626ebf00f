// `make run`: serve the API. Exits with a clear message on bad configuration.
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startServer } from './server.ts';

let config;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(2);
  }
  throw e;
}
const log = createLogger(config.logLevel);
const started = Date.now();
const server = await startServer(config, log);
log.info({ url: server.url, database: server.db.kind, dataDir: server.db.kind === 'pglite' ? config.dataDir : undefined, ms: Date.now() - started }, 'Tally is listening');
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
