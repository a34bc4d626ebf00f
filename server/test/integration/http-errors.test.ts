import { AUTH_MESSAGES } from '../../src/http/auth.ts';
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
    expect(await raw('/api/public/models', { project: null })).toMatchObject({ status: 401, body: { message: AUTH_MESSAGES.missing } });
    expect(await raw('/api/public/models', { project: null, headers: { authorization: 'Token abc' } })).toMatchObject({
      status: 401,
      body: { message: AUTH_MESSAGES.scheme },
    });
    expect(await raw('/api/public/models', { project: null, headers: { authorization: 'Basic bm9jb2xvbg==' } })).toMatchObject({
      status: 401,
      body: { message: AUTH_MESSAGES.undecodable },
    });
    const wrong = `Basic ${Buffer.from('pk-lf-x:sk-lf-wrong').toString('base64')}`;
    const res = await raw('/api/public/models', { project: null, headers: { authorization: wrong } });
    expect(res).toMatchObject({ status: 401, body: { message: AUTH_MESSAGES.unknown } });
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

  it('says why a body was not read: no Content-Type, another one, or no body at all', async () => {
    const body = JSON.stringify({ batch: [] });
    const noType = await raw('/api/public/ingestion', { method: 'POST', body: new Blob([body]) });
    expect(noType.status).toBe(400);
    expect(noType.body.errors).toEqual([
      'The request body was not read: it has no Content-Type header; send it with Content-Type: application/json.',
    ]);
    const text = await raw('/api/public/models', { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
    expect(text.status).toBe(400);
    expect(text.body.error[0].message).toBe(
      'The request body was not read: its Content-Type is "text/plain"; send it as application/json.',
    );
    const none = await raw('/api/public/models', { method: 'POST' });
    expect(none.status).toBe(400);
    expect(none.body.error[0].message).toBe('A JSON request body is required (Content-Type: application/json).');
  });
});
