// During a ClickHouse outage @clickhouse/client reports every failed request. Its own logger writes
// several lines of text per failure to the console, outside the server's JSON log; Tally hands it
// the server's logger instead, at debug (the exporter logs the failure once, with what it means).
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../../bench/lib.ts';
import { openClickHouse } from '../../src/analytics/clickhouse.ts';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      done();
    },
  });
  return { log: pino({ level }, stream), lines };
}

describe('the ClickHouse client logs through the server logger', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes nothing to the console when a request fails, and a JSON debug line naming the client', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const consoleWarn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { log, lines } = capture('debug');
    const port = await freePort(); // nothing listens there
    const a = openClickHouse(
      {
        kind: 'server',
        url: `http://127.0.0.1:${port}`,
        username: 'default',
        password: 'pw-never-logged',
        database: 'tally',
        cluster: null,
      },
      log,
    );
    try {
      await expect(a.client.command({ query: 'SELECT 1' })).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await a.client.close();
    }
    expect(consoleError).not.toHaveBeenCalled();
    expect(consoleWarn).not.toHaveBeenCalled();
    const line = lines.find((l) => l.component === '@clickhouse/client');
    expect(line).toMatchObject({ level: 20, module: expect.any(String), err: { message: expect.stringMatching(/ECONNREFUSED/) } });
    expect(JSON.stringify(lines)).not.toContain('pw-never-logged');
  });

  it('stays out of an info-level log', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const { log, lines } = capture('info');
    const a = openClickHouse(
      { kind: 'server', url: `http://127.0.0.1:${await freePort()}`, username: 'default', password: '', database: 'tally', cluster: null },
      log,
    );
    await a.client.command({ query: 'SELECT 1' }).catch(() => {});
    await a.client.close();
    expect(lines).toEqual([]);
  });
});
