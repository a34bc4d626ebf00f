// Where the key for connection secrets comes from. ENCRYPTION_KEY when set. Otherwise, on the
// embedded database, a key Tally creates once in the data directory (mode 0600), so `make run`
// with nothing set works and keeps working across restarts; in memory (tests), a key for the
// process. On PostgreSQL without ENCRYPTION_KEY there is no key: the server starts, warns, and
// connection writes answer 503 naming the variable.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { Keyring } from '../domain/llm-connections/secret-box.ts';
import type { Logger } from '../logger.ts';

export const KEY_FILE = 'encryption.key';

export function resolveKeyring(
  config: Pick<Config, 'encryptionKey' | 'encryptionKeyPrevious' | 'databaseUrl' | 'dataDir'>,
  log: Logger,
): Keyring {
  const previous = config.encryptionKeyPrevious;
  if (config.encryptionKey) return { current: config.encryptionKey, previous };
  if (config.databaseUrl) {
    log.warn(
      'ENCRYPTION_KEY is not set: LLM connections cannot be created or updated until it is (64 hex characters, `openssl rand -hex 32`)',
    );
    return { current: null, previous };
  }
  if (config.dataDir === 'memory://') return { current: randomBytes(32), previous };
  const path = join(config.dataDir, KEY_FILE);
  try {
    const text = readFileSync(path, 'utf8').trim();
    if (!/^[0-9a-fA-F]{64}$/.test(text))
      throw new Error(`${path} does not hold 64 hex characters; restore it from a backup or set ENCRYPTION_KEY`);
    return { current: Buffer.from(text, 'hex'), previous };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // another process (the CLI, a second server) created it first: use that one
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return resolveKeyring(config, log);
    throw e;
  }
  chmodSync(path, 0o600);
  log.info(
    { path },
    'created an encryption key for LLM connection secrets (keep this file with the data directory, or set ENCRYPTION_KEY)',
  );
  return { current: key, previous };
}
