import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, databaseUrl: null, encryptionKey: null, logLevel: 'info', initPublicKey: null });
    expect(c.dataDir.endsWith('/.data')).toBe(true);
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', ENCRYPTION_KEY: 'abc', LOG_LEVEL: 'loud', TALLY_INIT_PUBLIC_KEY: 'pk-lf-1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const msg = (error as Error).message;
    for (const name of ['PORT', 'DATABASE_URL', 'ENCRYPTION_KEY', 'LOG_LEVEL', 'TALLY_INIT_SECRET_KEY']) expect(msg).toContain(name);
  });

  it('accepts a 64-hex encryption key and a postgres URL', () => {
    const c = loadConfig({ ENCRYPTION_KEY: 'ab'.repeat(32), DATABASE_URL: 'postgresql://u@h:5432/db', PORT: '0' });
    expect(c.encryptionKey).toHaveLength(32);
    expect(c.databaseUrl).toBe('postgresql://u@h:5432/db');
    expect(c.port).toBe(0);
  });
});
