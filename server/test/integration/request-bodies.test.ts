// Request bodies as the HTTP layer reads them (server/src/http/body.ts, json-bytes.ts): bytes that
// are not UTF-8 are refused with the field named instead of being stored as U+FFFD; large bodies
// nested far too deep are refused as before without being parsed; encodings and charsets read as
// express.json read them.
import { randomBytes } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';

const json = { 'content-type': 'application/json' };
const at = '2026-01-01T00:00:00Z';
const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
const NOT_UTF8 = [0xff, 0xc0, 0xaf, 0xed, 0xa0, 0x80];
const post = (path: string, body: Buffer | string, headers: Record<string, string> = json) =>
  raw(path, { method: 'POST', headers, body: typeof body === 'string' ? body : new Uint8Array(body) });
const model = (name: string) => ({ modelName: name, matchPattern: `(?i)^(${unique('m')})$`, unit: 'TOKENS', inputPrice: 0.000001 });

describe('bytes that are not UTF-8', () => {
  it('refuse the one event holding them, naming the field; the rest of the batch is stored', async () => {
    const [bad, good] = [unique('gen'), unique('gen')];
    const [badEvent, goodEvent] = [unique('evt'), unique('evt')];
    const res = await post(
      '/api/public/ingestion',
      bytes(
        `{"batch":[
      {"id":"${badEvent}","timestamp":"${at}","type":"generation-create","body":{"id":"${bad}","model":"gpt`,
        NOT_UTF8,
        `4o"}},
      {"id":"${goodEvent}","timestamp":"${at}","type":"generation-create","body":{"id":"${good}","model":"gpt-4o","input":"caf\u00e9 \ufffd"}}]}`,
      ),
    );
    expect(res.status).toBe(207);
    expect(res.body.successes).toEqual([{ id: goodEvent, status: 201 }]);
    expect(res.body.errors).toEqual([
      {
        id: badEvent,
        status: 400,
        message: 'Invalid request data',
        error: [{ code: 'invalid_string', path: ['body', 'model'], message: 'Text contains bytes that are not valid UTF-8' }],
      },
    ]);
    expect((await raw(`/api/public/observations/${bad}`)).status).toBe(404);
    expect((await raw(`/api/public/observations/${good}`)).body.input).toBe('caf\u00e9 \ufffd');
  });

  it('in a key of an event are refused too', async () => {
    const res = await post(
      '/api/public/ingestion',
      bytes(
        `{"batch":[{"id":"${unique('evt')}","timestamp":"${at}","type":"span-create","body":{"id":"${unique('span')}","metadata":{"k`,
        [0xfe],
        `":1}}}]}`,
      ),
    );
    expect(res.body.errors[0].error).toEqual([
      { code: 'invalid_key', path: ['body', 'metadata', 'k\udfff\udfff'], message: 'Key contains bytes that are not valid UTF-8' },
    ]);
  });

  it('in the Models API are a 400 naming the field', async () => {
    const res = await post('/api/public/models', bytes(`{"modelName":"`, NOT_UTF8, `","matchPattern":"x","unit":"TOKENS","inputPrice":1}`));
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual([
      { code: 'invalid_string', path: ['modelName'], message: 'Text contains bytes that are not valid UTF-8' },
    ]);
  });

  it('a U+FFFD the client sent, raw or escaped, is stored as sent', async () => {
    for (const name of [`${unique('fffd')}-\ufffd\ufffd\ufffd`]) {
      const rawText = await post('/api/public/models', JSON.stringify(model(name)));
      expect(rawText.status, JSON.stringify(rawText.body)).toBe(200);
      expect(rawText.body.modelName).toBe(name);
      const escaped = await post('/api/public/models', JSON.stringify(model(`${name}-esc`)).replaceAll('\ufffd', '\\ufffd'));
      expect(escaped.body.modelName).toBe(`${name}-esc`);
      expect((await raw(`/api/public/models/${rawText.body.id}`)).body.modelName).toBe(name);
    }
  });

  it('in an OTLP/JSON export refuse the span holding them, counted in partialSuccess', async () => {
    const span = (name: Buffer | string, id: string) =>
      bytes(
        `{"traceId":"${randomBytes(16).toString('hex')}","spanId":"${id}","name":"`,
        typeof name === 'string' ? name : [...name],
        `","startTimeUnixNano":"1767225600000000000","endTimeUnixNano":"1767225601000000000"}`,
      );
    const [badId, goodId] = [randomBytes(8).toString('hex'), randomBytes(8).toString('hex')];
    const body = Buffer.concat([
      Buffer.from('{"resourceSpans":[{"scopeSpans":[{"spans":['),
      span(Buffer.from(NOT_UTF8), badId),
      Buffer.from(','),
      span('fine \ufffd', goodId),
      Buffer.from(']}]}]}'),
    ]);
    const res = await post('/api/public/otel/v1/traces', body);
    expect(res.status).toBe(200);
    expect(res.body.partialSuccess).toMatchObject({ rejectedSpans: 1, errorMessage: expect.stringContaining('not valid UTF-8') });
    expect(res.body.partialSuccess.errorMessage).toContain(badId);
    expect((await raw(`/api/public/observations/${goodId}`)).body.name).toBe('fine \ufffd');
  });
});

describe('large bodies nested far too deep', () => {
  const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('refuse the deep event alone, at the same path as a small body would', async () => {
    const [deep, fine] = [unique('deep-span'), unique('fine-span')];
    const text = (depth: number) => `{"batch":[
      {"id":"${unique('evt')}","timestamp":"${at}","type":"span-create","body":{"id":"${deep}","input":{"a":${nest(depth)}}}},
      {"id":"${unique('evt')}","timestamp":"${at}","type":"span-create","body":{"id":"${fine}","input":${nest(97)}}}]}`;
    const large = await post('/api/public/ingestion', text(1_000_000)); // 2 MB: pruned before parsing
    const small = await post('/api/public/ingestion', text(200));
    expect(large.status).toBe(207);
    expect(large.body.successes).toHaveLength(1);
    expect(large.body.errors[0].error).toEqual(small.body.errors[0].error);
    expect(large.body.errors[0].error[0]).toMatchObject({ code: 'too_big', path: ['body', 'input', 'a', ...Array(97).fill(0)] });
    expect((await raw(`/api/public/observations/${fine}`)).status).toBe(200);
  });

  it('refuse an explain body with the path named, and an invalid one as invalid JSON', async () => {
    const deep = await post('/api/public/models/explain', `{"model":"gpt-4o","metadata":${nest(2_000_000)}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.error[0]).toMatchObject({ code: 'too_big', path: ['metadata', ...Array(99).fill(0)] });
    const broken = await post(
      '/api/public/models/explain',
      `{"model":"gpt-4o","metadata":${'['.repeat(200_000)}1,,${']'.repeat(200_000)}}`,
    );
    expect(broken).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^Invalid JSON in request body at position \d+$/) },
    });
  });

  it('an OTLP/JSON export of 30 MB of nesting is answered at once', async () => {
    const started = Date.now();
    const res = await post('/api/public/otel/v1/traces', gzipSync(`{"resourceSpans":${nest(15 * 1024 * 1024)}}`), {
      ...json,
      'content-encoding': 'gzip',
    });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(10_000); // it took 30-80 s, and 2 GB, when parsed
  });
});

describe('bodies read as express.json read them', () => {
  it('gzip, deflate, br and zstd; a BOM; UTF-16; an empty body', async () => {
    const text = JSON.stringify(model(unique('enc')));
    const zlib = await import('node:zlib');
    for (const [encoding, body] of [
      ['gzip', gzipSync(text)],
      ['deflate', deflateSync(text)],
      ['br', brotliCompressSync(text)],
      ['zstd', zlib.zstdCompressSync(text)],
      ['identity', Buffer.from(text)],
    ] as const) {
      const res = await post('/api/public/models/explain', body, { ...json, 'content-encoding': encoding });
      expect(res.status, encoding).not.toBe(415);
      expect(res.body.message ?? '', encoding).not.toMatch(/JSON|decompress/);
    }
    const made = await post('/api/public/models', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
    expect(made.status).toBe(200);
    const utf16 = await post('/api/public/models', Buffer.from(JSON.stringify(model(unique('utf16-\u00e9'))), 'utf16le'), {
      'content-type': 'application/json; charset=utf-16le',
    });
    expect(utf16.status).toBe(200);
    expect(utf16.body.modelName).toMatch(/^utf16-\u00e9/);
    expect((await post('/api/public/models', Buffer.from(text), { 'content-type': 'application/json; charset=latin1' })).status).toBe(415);
    const empty = await post('/api/public/models', '');
    expect(empty.status).toBe(400);
    expect(empty.body.message).not.toMatch(/JSON/);
  });

  it('a body over the limit is a 413 with or without a length, compressed or not', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024, 'a');
    const chunked = () =>
      new ReadableStream({
        start(c) {
          for (let i = 0; i < 5; i++) c.enqueue(big.subarray(i * 1024 * 1024, (i + 1) * 1024 * 1024));
          c.close();
        },
      });
    for (const [body, headers] of [
      [big, json],
      [gzipSync(big), { ...json, 'content-encoding': 'gzip' }],
    ] as const) {
      const res = await post('/api/public/ingestion', body, headers);
      expect(res).toMatchObject({ status: 413, body: { message: 'Request body exceeds the 4.5 MB limit', error: 'PayloadTooLargeError' } });
    }
    const res = await raw('/api/public/ingestion', { method: 'POST', headers: json, body: chunked(), duplex: 'half' } as RequestInit);
    expect(res).toMatchObject({ status: 413, body: { error: 'PayloadTooLargeError' } });
    const otel = await post('/api/public/otel/v1/traces', gzipSync(Buffer.alloc(40 * 1024 * 1024)), {
      ...json,
      'content-encoding': 'gzip',
    });
    expect(otel).toMatchObject({ status: 413, body: { message: 'Request body exceeds the 32 MB limit', error: 'PayloadTooLargeError' } });
  });
});
