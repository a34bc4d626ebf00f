import { describe, expect, it } from 'vitest';
import { ConfigError, defaultTokenizerThreads, loadConfig } from '../../src/config.ts';

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      databaseUrl: null,
      encryptionKey: null,
      logLevel: 'info',
      initPublicKey: null,
      preparedStatements: true,
      eventIdRetentionDays: 30,
      requestTimeoutSeconds: 60,
      pgliteSharedBuffersMb: 32,
      heapGrowthPercent: 100,
      repriceInFlight: 2,
      alerts: true,
      alertsMinIntervalSeconds: 60,
    });
    expect(loadConfig({ TALLY_REPRICE_IN_FLIGHT: '1' }).repriceInFlight).toBe(1);
    expect(c.dataDir.endsWith('/.data')).toBe(true);
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        ENCRYPTION_KEY: 'abc',
        LOG_LEVEL: 'loud',
        TALLY_INIT_PUBLIC_KEY: 'pk-lf-1',
        TALLY_DB_PREPARED_STATEMENTS: 'maybe',
        TALLY_TOKENIZER_THREADS: '0',
        TALLY_TOKENIZER_IDLE_SECONDS: 'soon',
        TALLY_EVENT_ID_RETENTION_DAYS: '-1',
        TALLY_REQUEST_TIMEOUT_SECONDS: '0',
        TALLY_PGLITE_SHARED_BUFFERS_MB: '1.5',
        TALLY_HEAP_GROWTH_PERCENT: '-5',
        TALLY_REPRICE_IN_FLIGHT: '3',
        TALLY_ALERTS: 'maybe',
        TALLY_ALERTS_MIN_INTERVAL_SECONDS: '0',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const msg = (error as Error).message;
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'ENCRYPTION_KEY',
      'LOG_LEVEL',
      'TALLY_INIT_SECRET_KEY',
      'TALLY_DB_PREPARED_STATEMENTS',
      'TALLY_TOKENIZER_THREADS',
      'TALLY_TOKENIZER_IDLE_SECONDS',
      'TALLY_EVENT_ID_RETENTION_DAYS',
      'TALLY_REQUEST_TIMEOUT_SECONDS',
      'TALLY_PGLITE_SHARED_BUFFERS_MB',
      'TALLY_HEAP_GROWTH_PERCENT',
      'TALLY_REPRICE_IN_FLIGHT',
      'TALLY_ALERTS',
      'TALLY_ALERTS_MIN_INTERVAL_SECONDS',
    ])
      expect(msg).toContain(name);
  });

  it('accepts a 64-hex encryption key and a postgres URL', () => {
    const c = loadConfig({ ENCRYPTION_KEY: 'ab'.repeat(32), DATABASE_URL: 'postgresql://u@h:5432/db', PORT: '0' });
    expect(c.encryptionKey).toHaveLength(32);
    expect(c.databaseUrl).toBe('postgresql://u@h:5432/db');
    expect(c.port).toBe(0);
  });

  it('sizes the tokenizer pool by cores unless told', () => {
    expect([1, 2, 3, 16].map((cores) => defaultTokenizerThreads(cores))).toEqual([1, 1, 2, 2]);
    expect(loadConfig({ TALLY_TOKENIZER_THREADS: '4' }).tokenizerThreads).toBe(4);
    // idle threads are given back after 5 minutes unless told
    expect(loadConfig({}).tokenizerIdleMs).toBe(300_000);
    expect(loadConfig({ TALLY_TOKENIZER_IDLE_SECONDS: '0' }).tokenizerIdleMs).toBe(0);
  });

  it('turns prepared statements off for connection poolers that cannot carry them', () => {
    expect(loadConfig({ TALLY_DB_PREPARED_STATEMENTS: 'false' }).preparedStatements).toBe(false);
    expect(loadConfig({ TALLY_DB_PREPARED_STATEMENTS: '0' }).preparedStatements).toBe(false);
    expect(loadConfig({ TALLY_DB_PREPARED_STATEMENTS: 'TRUE' }).preparedStatements).toBe(true);
  });
});
