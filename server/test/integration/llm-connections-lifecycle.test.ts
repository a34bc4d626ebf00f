// Connection secrets as an operator meets them, with real processes of server/src/main.ts and
// the CLI: the key the embedded database creates on first start, the rows as stored, a key
// rotation, PostgreSQL without a key, and every log line searched for each stored secret.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { boot as bootServer, ROOT } from '../support/boot.ts';
import { openDatabase } from '../../src/db/orm.ts';
import { decryptSecret } from '../../src/domain/llm-connections/secret-box.ts';
import { sql } from '../../src/store/sql.ts';
import { json, sse, startFakeProvider } from '../support/fake-provider.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// the operator's own key settings never leak in; every log line is kept to search for secrets
const boot = (env: Record<string, string>) => bootServer({ ENCRYPTION_KEY: '', ENCRYPTION_KEY_PREVIOUS: '', LOG_LEVEL: 'trace', ...env });

const auth = (pk: string, sk: string) => `Basic ${Buffer.from(`${pk}:${sk}`).toString('base64')}`;
async function request(url: string, authorization: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

describe('connection secrets on the embedded database', () => {
  it('creates a key once (0600, logged, never printed), stores only ciphertext, and rotates with the CLI', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-conn-'));
    dirs.push(dir);
    const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-conn-test', TALLY_INIT_SECRET_KEY: 'sk-lf-conn-test-secret' };
    const authz = auth(keys.TALLY_INIT_PUBLIC_KEY, keys.TALLY_INIT_SECRET_KEY);
    const secretKey = `sk-live-${randomBytes(12).toString('hex')}`;
    const headerValue = `hv-${randomBytes(12).toString('hex')}`;
    const bedrockSecret = `bedrock-${randomBytes(12).toString('hex')}`;
    const stored = [secretKey, headerValue, bedrockSecret];

    const provider = await startFakeProvider();
    const first = await boot({ ...keys, TALLY_DATA_DIR: dir, TALLY_LLM_ALLOWED_HOSTS: '127.0.0.1' });
    const keyFile = join(dir, 'encryption.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const fileKey = readFileSync(keyFile, 'utf8').trim();
    expect(fileKey).toMatch(/^[0-9a-f]{64}$/);
    expect(first.output().match(/created an encryption key/g)).toHaveLength(1);

    const responses: string[] = [];
    const send = async (method: string, path: string, body?: unknown) => {
      const r = await request(first.url, authz, method, path, body);
      responses.push(r.text);
      return r;
    };
    const created = await send('PUT', '/api/public/llm-connections', {
      provider: 'p',
      adapter: 'openai',
      secretKey,
      extraHeaders: { 'X-Key': headerValue },
    });
    expect(created.status).toBe(201);
    const id = JSON.parse(created.text).id;
    expect(
      (
        await send('PUT', '/api/public/llm-connections', {
          provider: 'p',
          adapter: 'openai',
          secretKey,
          extraHeaders: { 'X-Key': headerValue },
          config: { nope: 1 },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await send('PUT', '/api/public/llm-connections', {
          provider: 'b',
          adapter: 'bedrock',
          secretKey: JSON.stringify({ apiKey: bedrockSecret, x: 1 }),
          config: { region: 'eu' },
        })
      ).status,
    ).toBe(400);
    expect(
      (await send('PUT', '/api/public/llm-connections', { provider: 'c', adapter: 'anthropic', secretKey, config: { a: 'b' } })).status,
    ).toBe(400);
    expect(
      (
        await send('PUT', '/api/public/llm-connections', {
          provider: 'c',
          adapter: 'anthropic',
          secretKey,
          extraHeaders: { 'X-Key': headerValue },
          baseURL: 'ftp://x',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await send('PUT', '/api/public/llm-connections', {
          provider: '',
          adapter: 'anthropic',
          secretKey,
          extraHeaders: { 'X-Key': headerValue },
        })
      ).status,
    ).toBe(400);
    expect((await send('GET', '/api/public/llm-connections')).status).toBe(200);
    expect((await send('GET', `/api/public/llm-connections/${id}/models`)).status).toBe(200);

    // calls through a connection: the secrets go to the provider, and nowhere else, even when the
    // provider echoes them in an error
    const viaFake = await send('PUT', '/api/public/llm-connections', {
      provider: 'fake',
      adapter: 'openai',
      secretKey,
      baseURL: `${provider.url}/v1`,
      extraHeaders: { 'X-Key': headerValue },
    });
    expect(viaFake.status).toBe(201);
    const fakeId = JSON.parse(viaFake.text).id;
    const call = { provider: 'fake', model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
    provider.answer = (_r, res) =>
      json(res, 401, { error: { message: `Incorrect API key provided: ${secretKey} (header ${headerValue})`, code: 'invalid_api_key' } });
    expect((await send('POST', '/api/public/playground/completions', call)).status).toBe(502);
    expect(JSON.parse((await send('POST', `/api/public/llm-connections/${fakeId}/test`, {})).text).error.kind).toBe('auth_invalid');
    expect((await send('POST', '/api/public/playground/completions', { ...call, stream: true })).text).toContain('event: error');
    const usage = { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 };
    provider.answer = (r, res) =>
      r.body.stream
        ? sse(
            res,
            [
              {
                id: 'c',
                object: 'chat.completion.chunk',
                created: 1,
                model: 'gpt-4o-mini',
                choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
              },
              { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage },
            ],
            { done: true },
          )
        : json(res, 200, {
            id: 'c',
            object: 'chat.completion',
            created: 1,
            model: 'gpt-4o-mini',
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
            usage,
          });
    expect((await send('POST', '/api/public/playground/completions', call)).status).toBe(200);
    expect((await send('POST', '/api/public/playground/completions', { ...call, stream: true })).text).toContain('event: completion');
    expect(provider.received.length).toBe(5);
    for (const r of provider.received) {
      expect(r.headers.authorization).toBe(`Bearer ${secretKey}`);
      expect(r.headers['x-key']).toBe(headerValue);
    }
    await provider.close();
    await first.stop();

    const second = await boot({ ...keys, TALLY_DATA_DIR: dir });
    expect(second.output()).not.toContain('created an encryption key');
    expect((await request(second.url, authz, 'GET', '/api/public/llm-connections')).status).toBe(200);
    await second.stop();

    const logs = first.output() + second.output();
    expect(logs).toContain('"path":"/api/public/llm-connections"'); // the requests were logged
    for (const s of [...stored, fileKey]) {
      expect(logs.includes(s), 'a secret in the log').toBe(false);
      for (const r of responses) expect(r.includes(s), 'a secret in a response').toBe(false);
    }

    const readRow = async () => {
      const db = await openDatabase({ databaseUrl: null, dataDir: dir });
      try {
        return (await sql<any>`select * from llm_connections where id = ${id}`.execute(db.em().getKysely() as any)).rows[0];
      } finally {
        await db.close();
      }
    };
    const row = await readRow();
    expect(JSON.stringify(row)).not.toContain(secretKey);
    expect(JSON.stringify(row)).not.toContain(headerValue);
    expect(row.extra_header_keys).toEqual(['X-Key']);
    const oldRing = { current: Buffer.from(fileKey, 'hex'), previous: null };
    expect(decryptSecret(oldRing, row.secret_key_enc).plaintext).toBe(secretKey);

    // rotation: the new key in ENCRYPTION_KEY, the old one in ENCRYPTION_KEY_PREVIOUS
    const newKey = randomBytes(32).toString('hex');
    const rotatingRing = { current: Buffer.from(newKey, 'hex'), previous: Buffer.from(fileKey, 'hex') };
    expect(decryptSecret(rotatingRing, row.secret_key_enc)).toEqual({ plaintext: secretKey, underPrevious: true });
    const cli = spawnSync(process.execPath, ['server/src/cli.ts', 'connections', 'reencrypt'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', TALLY_DATA_DIR: dir, ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: fileKey },
      encoding: 'utf8',
    });
    expect(cli.status, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual({ connections: 2, underPreviousKey: 2 });
    for (const s of [...stored, fileKey, newKey]) expect(cli.stdout + cli.stderr).not.toContain(s);
    const rotated = await readRow();
    const newRing = { current: Buffer.from(newKey, 'hex'), previous: null };
    expect(decryptSecret(newRing, rotated.secret_key_enc)).toEqual({ plaintext: secretKey, underPrevious: false });
    expect(JSON.parse(decryptSecret(newRing, rotated.extra_headers_enc).plaintext)).toEqual({ 'X-Key': headerValue });
    expect(() => decryptSecret(oldRing, rotated.secret_key_enc)).toThrow();
  }, 180_000);

  it('refuses a bad ENCRYPTION_KEY_PREVIOUS at start with a message naming it', () => {
    const r = spawnSync(process.execPath, ['server/src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, ENCRYPTION_KEY_PREVIOUS: 'xyz' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('ENCRYPTION_KEY_PREVIOUS must be 64 hex characters');
  });
});

describe.skipIf(!process.env.DATABASE_URL)('PostgreSQL without ENCRYPTION_KEY', () => {
  it('starts with a warning; connection writes answer 503 naming ENCRYPTION_KEY, reads work', async () => {
    const pk = `pk-lf-nokey-${randomBytes(4).toString('hex')}`;
    const sk = `sk-lf-nokey-${randomBytes(8).toString('hex')}`;
    const s = await boot({
      DATABASE_URL: process.env.DATABASE_URL!,
      TALLY_INIT_PUBLIC_KEY: pk,
      TALLY_INIT_SECRET_KEY: sk,
      TALLY_DATA_DIR: 'unused',
    });
    try {
      expect(s.output()).toMatch(/"level":40[^\n]*ENCRYPTION_KEY is not set/);
      const secretKey = `sk-${randomBytes(12).toString('hex')}`;
      const put = await request(s.url, auth(pk, sk), 'PUT', '/api/public/llm-connections', { provider: 'x', adapter: 'openai', secretKey });
      expect(put.status).toBe(503);
      const body = JSON.parse(put.text);
      expect(body.error).toBe('EncryptionKeyMissingError');
      expect(body.message).toContain('ENCRYPTION_KEY');
      expect(put.text).not.toMatch(/ at .*\.ts/);
      expect((await request(s.url, auth(pk, sk), 'GET', '/api/public/llm-connections')).status).toBe(200);
      expect(s.output()).not.toContain(secretKey);
    } finally {
      await s.stop();
    }
  }, 120_000);
});
