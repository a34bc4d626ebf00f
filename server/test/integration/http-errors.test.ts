import { describe, expect, it } from 'vitest';
import { raw } from '../support/client.ts';

describe('HTTP error contract', () => {
  it('answers health without credentials', async () => {
    const res = await raw('/api/public/health', { project: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'OK', version: expect.any(String), analytics: { engine: 'postgres' } });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('rejects a missing, non-Basic, undecodable or unknown credential with 401 bodies', async () => {
    expect(await raw('/api/public/models', { project: null })).toMatchObject({ status: 401, body: { message: 'No authorization header' } });
    expect(await raw('/api/public/models', { project: null, headers: { authorization: 'Token abc' } })).toMatchObject({
      status: 401,
      body: { message: 'Invalid authorization header' },
    });
    expect(await raw('/api/public/models', { project: null, headers: { authorization: 'Basic bm9jb2xvbg==' } })).toMatchObject({
      status: 401,
      body: { message: "Invalid authorization header. Confirm that you've configured the correct host." },
    });
    const wrong = `Basic ${Buffer.from('pk-lf-x:sk-lf-wrong').toString('base64')}`;
    const res = await raw('/api/public/models', { project: null, headers: { authorization: wrong } });
    expect(res).toMatchObject({ status: 401, body: { message: "Invalid credentials. Confirm that you've configured the correct host." } });
    expect(Object.keys(res.body)).toEqual(['message']);
  });

  it('answers a Bearer public key on a project route with 403', async () => {
    const res = await raw('/api/public/models', { project: null, headers: { authorization: 'Bearer pk-lf-anything' } });
    expect(res).toMatchObject({ status: 403, body: { message: 'Access denied - insufficient permissions for this endpoint' } });
  });

  it('answers unknown routes with a JSON 404 and wrong methods with a JSON 405', async () => {
    expect(await raw('/api/public/nope')).toMatchObject({ status: 404, body: { error: 'NotFoundError' } });
    expect(await raw('/api/public/models', { method: 'PATCH' })).toMatchObject({
      status: 405,
      body: { message: 'Method not allowed', error: 'MethodNotAllowedError' },
    });
  });

  it('answers malformed JSON with a JSON 400, not an HTML page', async () => {
    const res = await raw('/api/public/models', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"modelName": ',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'InvalidRequestError', message: expect.stringContaining('Invalid JSON') });
  });

  it('answers a body over 4.5 MB with a JSON 413', async () => {
    const big = JSON.stringify({ modelName: 'x'.repeat(5 * 1024 * 1024) });
    const res = await raw('/api/public/models', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res).toMatchObject({ status: 413, body: { error: 'PayloadTooLargeError' } });
  });

  it('names every failing field of a schema-invalid body', async () => {
    const res = await raw('/api/public/models', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ modelName: 'x', inputPrice: -1, unit: 'PARSECS' }),
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Invalid request data');
    const paths = res.body.error.map((i: { path: unknown[] }) => i.path.join('.')).sort();
    expect(paths).toEqual(['inputPrice', 'matchPattern', 'unit']);
  });

  it('checks pagination bounds', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=-1', 'page=0', 'page=0.5', 'page=abc']) {
      const res = await raw(`/api/public/models?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error[0].path, q).toEqual([q.split('=')[0]]);
    }
  });
});
