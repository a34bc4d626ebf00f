// Jobs outlive the process: generations ingested while no worker runs (TALLY_EVAL_CONCURRENCY=0,
// as on an instance that only ingests) stay PENDING in the database, and a server started later
// on the same data scores every one of them. Real processes of server/src/main.ts on the
// embedded database, a fake gateway on loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { boot } from '../support/boot.ts';
import { json, startFakeProvider } from '../support/fake-provider.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const keys = { TALLY_INIT_PUBLIC_KEY: 'pk-lf-restart', TALLY_INIT_SECRET_KEY: 'sk-lf-restart-secret' };
const authorization = `Basic ${Buffer.from(`${keys.TALLY_INIT_PUBLIC_KEY}:${keys.TALLY_INIT_SECRET_KEY}`).toString('base64')}`;

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** on PostgreSQL runs of the suite: a database of its own, so the suite's server (whose workers share the test database) cannot take the jobs */
async function databaseEnv(): Promise<Record<string, string>> {
  const url = process.env.DATABASE_URL;
  if (!url) return {};
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
  await admin.connect();
  try {
    await admin.query('drop database if exists tally_eval_restart');
    await admin.query('create database tally_eval_restart');
  } finally {
    await admin.end();
  }
  return { DATABASE_URL: url.replace(/\/[^/]*$/, '/tally_eval_restart'), ENCRYPTION_KEY: 'ab'.repeat(32) };
}

describe('evaluation jobs across a restart', () => {
  it('keeps jobs enqueued while no worker runs, and a later server scores them all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-eval-restart-'));
    dirs.push(dir);
    const gateway = await startFakeProvider();
    gateway.answer = (_r, res) =>
      json(res, 200, {
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o-mini',
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 't', type: 'function', function: { name: 'extract', arguments: '{"score":"true","reasoning":"ok"}' } }],
            },
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    const env = { ...keys, TALLY_DATA_DIR: dir, TALLY_LLM_ALLOWED_HOSTS: '127.0.0.1', ...(await databaseEnv()) };

    const first = await boot({ ...env, TALLY_EVAL_CONCURRENCY: '0' });
    expect(
      (
        await call(first.url, 'PUT', '/api/public/llm-connections', {
          provider: 'gw',
          adapter: 'openai',
          secretKey: 'sk-restart-key-123',
          baseURL: `${gateway.url}/v1`,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call(first.url, 'POST', '/api/public/unstable/evaluators', {
          name: 'polite',
          prompt: 'Is {{answer}} polite?',
          modelConfig: { provider: 'gw', model: 'gpt-4o-mini' },
          outputDefinition: { dataType: 'BOOLEAN', reasoning: { description: 'Why.' }, score: { description: 'Polite?' } },
          mapping: [{ variable: 'answer', source: 'output' }],
        })
      ).status,
    ).toBe(200);
    const rule = await call(first.url, 'POST', '/api/public/unstable/evaluation-rules', {
      name: 'all',
      enabled: true,
      target: 'observation',
      filter: [],
      evaluators: [{ evaluator: { name: 'polite' } }],
    });
    expect(rule.status).toBe(200);
    const ts = new Date().toISOString();
    const batch = Array.from({ length: 5 }, (_, i) => ({
      id: `e${i}`,
      timestamp: ts,
      type: 'generation-create',
      body: { id: `g${i}`, traceId: `t${i}`, name: 'chat', output: 'Thank you!' },
    }));
    expect((await call(first.url, 'POST', '/api/public/ingestion', { batch })).status).toBe(207);
    const pending = (await call(first.url, 'GET', `/api/public/unstable/evaluation-rules/${rule.body.id}/executions`)).body;
    expect(pending.data.map((j: any) => j.status)).toEqual(['PENDING', 'PENDING', 'PENDING', 'PENDING', 'PENDING']);
    await first.stop();
    expect(gateway.received).toHaveLength(0);

    const second = await boot(env);
    try {
      const end = Date.now() + 30_000;
      let jobs: any[] = [];
      while (Date.now() < end) {
        jobs = (await call(second.url, 'GET', `/api/public/unstable/evaluation-rules/${rule.body.id}/executions`)).body.data;
        if (jobs.every((j) => j.status === 'COMPLETED')) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(jobs.map((j) => j.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED']);
      const scores = (await call(second.url, 'GET', '/api/public/v2/scores?name=polite&source=EVAL')).body.data;
      expect(scores.map((s: any) => s.observationId).sort()).toEqual(['g0', 'g1', 'g2', 'g3', 'g4']);
      expect(scores.every((s: any) => s.dataType === 'BOOLEAN' && s.value === 1)).toBe(true);
      expect(gateway.received).toHaveLength(5);
    } finally {
      await second.stop();
      await gateway.close();
    }
  }, 120_000);
});
