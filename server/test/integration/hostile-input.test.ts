// Input that used to answer 500 (or poison later reads) answers a 4xx naming the problem.
import { request } from 'node:http';
import { describe, expect, inject, it } from 'vitest';
import { basic } from '../support/start.ts';
import { raw, unique } from '../support/client.ts';

const json = { 'content-type': 'application/json' };
const post = (path: string, body: unknown) => raw(path, { method: 'POST', headers: json, body: JSON.stringify(body) });
const nest = (n: number): unknown => (n <= 1 ? [] : [nest(n - 1)]);
/** JSON text of `n` nested arrays (JSON.stringify of thousands of levels overflows the test's stack) */
const nestText = (n: number) => '['.repeat(n) + ']'.repeat(n);
const postText = (path: string, text: string) => raw(path, { method: 'POST', headers: json, body: text });
const at = '2026-01-01T00:00:00Z';

/** a raw path, sent byte for byte (fetch would normalise the escapes) */
function getRaw(path: string): Promise<{ status: number; body: any }> {
  const url = new URL(inject('baseUrl'));
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, headers: { authorization: basic(inject('projectA')) } }, (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('hostile input gets a 4xx', () => {
  it('path parameters that are not valid percent-encoding or hold NUL', async () => {
    for (const path of [
      '/api/public/models/%E0%A4%A',
      '/api/public/models/%',
      '/api/public/observations/%ff',
      '/api/public/traces/a%00b',
      '/api/public/models/%ED%A0%80',
    ]) {
      const res = await getRaw(path);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toMatchObject({ error: 'InvalidRequestError', message: expect.stringMatching(/percent-encoded|NUL/) });
    }
    expect((await getRaw('/api/public/traces/no%20such%20trace')).status).toBe(404);
  });

  it('page and limit that are not safe integers in range', async () => {
    for (const q of [
      'page=1e309',
      'page=99999999999999999999',
      'page=9007199254740993',
      'page=1000001',
      'limit=1e309',
      'page=-1',
      'limit=Infinity',
      'page=NaN',
    ]) {
      for (const path of ['/api/public/models', '/api/public/observations']) {
        const res = await raw(`${path}?${q}`);
        expect(res.status, `${path}?${q}`).toBe(400);
        expect(res.body.error[0].path, q).toEqual([q.split('=')[0]]);
      }
    }
    expect((await raw('/api/public/models?page=1000000')).body.data).toEqual([]);
  });

  it('NUL characters anywhere in an observation filter', async () => {
    for (const filter of [
      [{ type: 'string', column: 'name', operator: '=', value: 'a\u0000b' }],
      [{ type: 'stringObject', column: 'metadata', key: 'k\u0000', operator: '=', value: 'v' }],
      [{ type: 'stringOptions', column: 'type', operator: 'any of', value: ['GENERATION', '\u0000'] }],
    ]) {
      const res = await raw(`/api/public/observations?filter=${encodeURIComponent(JSON.stringify(filter))}`);
      expect(res.status).toBe(400);
      expect(res.body.error[0]).toMatchObject({ code: 'invalid_string', message: expect.stringContaining('NUL') });
    }
  });

  it('JSON nested deeper than 100 levels in the models API and explain', async () => {
    const model = await post('/api/public/models', {
      modelName: unique('deep'),
      matchPattern: 'x',
      unit: 'TOKENS',
      inputPrice: 1,
      tokenizerConfig: { a: nest(120) },
    });
    expect(model.status).toBe(400);
    expect(model.body.error[0]).toMatchObject({ code: 'too_big', message: expect.stringContaining('deeper than 100') });
    const explain = await postText('/api/public/models/explain', `{"model":"gpt-4o","metadata":${nestText(5000)}}`);
    expect(explain.status).toBe(400);
    expect(explain.body.error[0].path[0]).toBe('metadata');
  });

  it('a too-deep ingestion event is refused alone and the rest of its batch is stored', async () => {
    const [deep, fine] = [unique('deep-span'), unique('fine-span')];
    const res = await postText(
      '/api/public/ingestion',
      `{"batch":[
      {"id":"${unique('evt')}","timestamp":"${at}","type":"span-create","body":{"id":"${deep}","input":${nestText(5000)}}},
      {"id":"${unique('evt')}","timestamp":"${at}","type":"span-create","body":{"id":"${fine}","input":${nestText(97)}}}]}`,
    );
    expect(res.status).toBe(207);
    expect(res.body.successes).toHaveLength(1);
    expect(res.body.errors).toEqual([expect.objectContaining({ status: 400, error: [expect.objectContaining({ code: 'too_big' })] })]);
    expect((await raw(`/api/public/observations/${fine}`)).status).toBe(200);
    expect((await raw(`/api/public/observations/${deep}`)).status).toBe(404);
  });

  it('strings longer than the database can index', async () => {
    const name = Array.from({ length: 3000 }, (_, i) => String.fromCodePoint(0x1f600 + (i % 50))).join('');
    const res = await post('/api/public/models', { modelName: name, matchPattern: 'x', unit: 'TOKENS', inputPrice: 1 });
    expect(res).toMatchObject({ status: 400, body: { error: [{ path: ['modelName'], code: 'too_big' }] } });
    const ingest = await post('/api/public/ingestion', {
      batch: [
        { id: unique('evt'), timestamp: at, type: 'span-create', body: { id: 'x'.repeat(601) } },
        { id: unique('evt'), timestamp: at, type: 'score-create', body: { id: '\u{1f600}'.repeat(700), name: 'n', value: 1 } },
      ],
    });
    expect(ingest.body.errors.map((e: any) => e.error[0].path)).toEqual([
      ['body', 'id'],
      ['body', 'id'],
    ]);
    expect((await raw(`/api/public/observations?userId=${'u'.repeat(601)}`)).status).toBe(400);
    expect((await raw(`/api/public/traces/${'t'.repeat(601)}`)).status).toBe(400);
  });
});

describe('nothing accepted can poison a read', () => {
  it('refuses, per event, timestamps outside years 1000..9999 and impossible dates', async () => {
    const [ok, trace] = [unique('ok-span'), unique('trace')];
    const bad: [string, Record<string, unknown>][] = [
      ['0000-01-01T00:00:00Z', {}],
      ['+275760-09-13T00:00:00Z', {}],
      ['9999-12-31T23:59:59-01:00', {}],
      ['2026-02-30T00:00:00Z', {}],
      [at, { startTime: '0000-01-01T00:00:00Z' }],
      [at, { endTime: '2026-02-30T12:00:00Z' }],
      [at, { startTime: '10000-01-01T00:00:00Z' }],
    ];
    const res = await post('/api/public/ingestion', {
      batch: [
        ...bad.map(([timestamp, fields]) => ({
          id: unique('evt'),
          timestamp,
          type: 'span-create',
          body: { id: unique('bad-span'), ...fields },
        })),
        { id: unique('evt'), timestamp: at, type: 'score-create', body: { name: 's', value: 1, timestamp: '0000-01-01T00:00:00Z' } },
        {
          id: unique('evt'),
          timestamp: '9999-12-31T23:59:59.999Z',
          type: 'span-create',
          body: { id: ok, traceId: trace, startTime: '1000-01-01T00:00:00Z' },
        },
        { id: unique('evt'), timestamp: '1000-01-01T00:00:00Z', type: 'trace-create', body: { id: trace } },
      ],
    });
    expect(res.body.errors).toHaveLength(bad.length + 1);
    for (const e of res.body.errors)
      expect(e.error[0]).toMatchObject({ code: 'invalid_format', message: expect.stringContaining('1000-01-01T00:00:00Z and 9999-12-31') });
    const stored = await raw(`/api/public/observations/${ok}`);
    expect(stored.body.startTime).toBe('1000-01-01T00:00:00.000Z');
    const list = await raw(`/api/public/observations?traceId=${stored.body.traceId}`);
    expect(list.status).toBe(200);
    expect((await raw(`/api/public/traces/${stored.body.traceId}`)).status).toBe(200);
  });

  it('refuses timestamps out of range in model start dates and list bounds', async () => {
    for (const startDate of ['0000-01-01', '2026-02-30', '0000-01-01T00:00:00Z']) {
      const res = await post('/api/public/models', { modelName: unique('m'), matchPattern: 'x', unit: 'TOKENS', inputPrice: 1, startDate });
      expect(res.status, startDate).toBe(400);
    }
    expect((await raw('/api/public/observations?fromStartTime=0000-01-01T00:00:00Z')).status).toBe(400);
    const filter = [{ type: 'datetime', column: 'startTime', operator: '>', value: '2026-02-30T00:00:00Z' }];
    expect((await raw(`/api/public/observations?filter=${encodeURIComponent(JSON.stringify(filter))}`)).status).toBe(400);
  });

  it('refuses usage counts beyond 2^53 - 1 instead of rounding or dropping them', async () => {
    const res = await post('/api/public/ingestion', {
      batch: [
        {
          id: unique('evt'),
          timestamp: at,
          type: 'generation-create',
          // biome-ignore lint/correctness/noPrecisionLoss: an integer past 2^53 is what this case sends
          body: { id: unique('g'), usageDetails: { input: 9007199254740993 } },
        },
        {
          id: unique('evt'),
          timestamp: at,
          type: 'generation-create',
          body: {
            id: unique('g'),
            usageDetails: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, prompt_tokens_details: { cached_tokens: 1e300 } },
          },
        },
        { id: unique('evt'), timestamp: at, type: 'generation-create', body: { id: unique('g'), usage: { input: 2 ** 60 } } },
      ],
    });
    expect(res.body.errors.map((e: any) => e.error[0].path)).toEqual([
      ['body', 'usageDetails', 'input'],
      ['body', 'usageDetails', 'prompt_tokens_details', 'cached_tokens'],
      ['body', 'usage', 'input'],
    ]);
    const max = unique('g');
    await post('/api/public/ingestion', {
      batch: [
        { id: unique('evt'), timestamp: at, type: 'generation-create', body: { id: max, usageDetails: { input: 9007199254740991 } } },
      ],
    });
    expect((await raw(`/api/public/observations/${max}`)).body.usageDetails.input).toBe(9007199254740991);
    const explain = await post('/api/public/models/explain', { model: 'gpt-4o', usageDetails: { input: 2 ** 53 } });
    expect(explain).toMatchObject({ status: 400, body: { error: [{ path: ['usageDetails', 'input'] }] } });
  });
});

describe('numbers beyond the range of a double', () => {
  it('are refused with the field named, not stored as null', async () => {
    const model = await raw('/api/public/models', {
      method: 'POST',
      headers: json,
      body: `{"modelName":"${unique('inf')}","matchPattern":"x","unit":"TOKENS","inputPrice":1e309}`,
    });
    expect(model).toMatchObject({ status: 400, body: { error: [{ path: ['inputPrice'], code: 'too_big' }] } });
    const [ok, bad] = [unique('g'), unique('g')];
    const res = await postText(
      '/api/public/ingestion',
      `{"batch":[
      {"id":"${unique('evt')}","timestamp":"${at}","type":"generation-create","body":{"id":"${bad}","costDetails":{"input":-1E+400}}},
      {"id":"${unique('evt')}","timestamp":"${at}","type":"generation-create","body":{"id":"${ok}","costDetails":{"input":1e11}}}]}`,
    );
    expect(res.body.errors).toEqual([
      expect.objectContaining({ error: [expect.objectContaining({ path: ['body', 'costDetails', 'input'] })] }),
    ]);
    expect((await raw(`/api/public/observations/${ok}`)).body.costDetails.input).toBe(1e11);
    const filter = encodeURIComponent('[{"type":"number","column":"totalCost","operator":">","value":1e999}]');
    expect((await raw(`/api/public/observations?filter=${filter}`)).status).toBe(400);
  });
});

describe('found by the fuzz suite', () => {
  it('a filter or metrics field named like an Object property is unknown, not a 500 (seed 12345)', async () => {
    for (const column of ['__proto__', 'valueOf', 'constructor', 'toString']) {
      const filter = encodeURIComponent(JSON.stringify([{ type: 'datetime', column, operator: '>', value: at }]));
      const res = await raw(`/api/public/observations?filter=${filter}`);
      expect(res, column).toMatchObject({
        status: 400,
        body: { error: 'InvalidRequestError', message: expect.stringContaining(`Invalid filter column ${column}`) },
      });
      const q = (over: object) =>
        encodeURIComponent(
          JSON.stringify({ view: 'observations', metrics: [], fromTimestamp: at, toTimestamp: '2026-01-02T00:00:00Z', ...over }),
        );
      expect((await raw(`/api/public/v2/metrics?query=${q({ dimensions: [{ field: column }] })}`)).status).toBe(400);
      expect((await raw(`/api/public/v2/metrics?query=${q({ metrics: [{ measure: column, aggregation: 'sum' }] })}`)).status).toBe(400);
      expect(
        (await raw(`/api/public/v2/metrics?query=${q({ filters: [{ column, operator: '=', value: 'x', type: 'string' }] })}`)).status,
      ).toBe(400);
    }
  });

  it('a body that is not JSON gets the ingestion error shape on the ingestion endpoint', async () => {
    for (const body of ['NaN', '1e+308', '{"batch": [']) {
      const res = await raw('/api/public/ingestion', { method: 'POST', headers: json, body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Invalid request data', errors: [expect.stringContaining('Invalid JSON in request body')] });
    }
  });

  it('a request line Node refuses gets a JSON 400', async () => {
    const url = new URL(inject('baseUrl'));
    const { connect } = await import('node:net');
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write(
          Buffer.concat([
            Buffer.from('GET /api/public/health?name='),
            Buffer.from([0xff, 0x00]),
            Buffer.from(' HTTP/1.1\r\nhost: x\r\n\r\n'),
          ]),
        ),
      );
      let data = '';
      socket.on('data', (d) => {
        data += d;
      });
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1.1 400 Bad Request/);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
      message: 'The request is not valid HTTP',
      error: 'InvalidRequestError',
    });
  });
});

describe('found by the fuzz suite (2)', () => {
  it("a number filter far outside an integer column's range compares instead of failing (seed 12345)", async () => {
    for (const value of [-1.7976931348623157e308, 1e20, 2 ** 31]) {
      const filter = encodeURIComponent(JSON.stringify([{ type: 'number', column: 'promptVersion', operator: '=', value }]));
      expect((await raw(`/api/public/observations?filter=${filter}`)).status).toBe(200);
    }
  });

  it('a body the server cannot decode gets the ingestion error shape on the ingestion endpoint', async () => {
    const res = await raw('/api/public/ingestion', {
      method: 'POST',
      headers: { ...json, 'content-encoding': 'gzip' },
      body: 'not gzip at all',
    });
    expect(res).toMatchObject({ status: 400, body: { message: 'Invalid request data', errors: [expect.any(String)] } });
  });
});

describe('found by the fuzz suite (3)', () => {
  it('prices and costs that would overflow to Infinity are refused (seeds 10, 12, 16)', async () => {
    const model = await post('/api/public/models', {
      modelName: unique('huge'),
      matchPattern: unique('huge'),
      unit: 'TOKENS',
      inputPrice: 1e308,
    });
    expect(model).toMatchObject({ status: 400, body: { error: [{ path: ['inputPrice'], code: 'too_big' }] } });
    const tiers = await post('/api/public/models', {
      modelName: unique('huge'),
      matchPattern: unique('huge'),
      unit: 'TOKENS',
      pricingTiers: [{ name: 'd', isDefault: true, priority: 0, conditions: [], prices: { input: 2e6 } }],
    });
    expect(tiers.status).toBe(400);
    const res = await post('/api/public/ingestion', {
      batch: [
        { id: unique('evt'), timestamp: at, type: 'generation-create', body: { id: unique('g'), costDetails: { total: 1e300 } } },
        { id: unique('evt'), timestamp: at, type: 'generation-create', body: { id: unique('g'), usage: { input: 1, totalCost: 2e12 } } },
      ],
    });
    expect(res.body.errors.map((e: any) => e.error[0].path)).toEqual([
      ['body', 'costDetails', 'total'],
      ['body', 'usage', 'totalCost'],
    ]);
    expect((await post('/api/public/models/explain', { model: 'x', costDetails: { total: 1e13 } })).status).toBe(400);
  });

  it('two events for one score in a batch store the later one instead of failing the batch (seed 10)', async () => {
    const id = unique('score');
    const res = await post('/api/public/ingestion', {
      batch: [
        {
          id: unique('evt'),
          timestamp: '2004-01-01T00:00:02Z',
          type: 'score-create',
          body: { id, name: 'dup', value: 2, timestamp: '2004-01-01T00:00:00Z' },
        },
        {
          id: unique('evt'),
          timestamp: '2004-01-01T00:00:01Z',
          type: 'score-create',
          body: { id, name: 'dup', value: 1, timestamp: '2004-01-01T00:00:00Z' },
        },
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body.errors).toEqual([]);
    const query = encodeURIComponent(
      JSON.stringify({
        view: 'scores-numeric',
        metrics: [
          { measure: 'value', aggregation: 'max' },
          { measure: 'count', aggregation: 'count' },
        ],
        filters: [{ column: 'id', operator: '=', value: id, type: 'string' }],
        fromTimestamp: '2004-01-01T00:00:00Z',
        toTimestamp: '2004-01-02T00:00:00Z',
      }),
    );
    expect((await raw(`/api/public/v2/metrics?query=${query}`)).body.data).toEqual([{ max_value: 2, count_count: 1 }]);
  });
});

describe('secrets in a body that is not JSON', () => {
  it('are not echoed in the 400 (V8 quotes the text around a parse error)', async () => {
    const secret = 'sk-supersecret-echo-0123456789';
    const res = await raw('/api/public/llm-connections', {
      method: 'PUT',
      headers: json,
      body: `{"provider":"p","adapter":"openai","secretKey": ${secret}}`,
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toMatch(/supersecret|0123456789/);
    expect(res.body.message).toMatch(/^Invalid JSON in request body/);
  });
});

describe('egress policy on connection base URLs', () => {
  const put = (baseURL: string) =>
    raw('/api/public/llm-connections', {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ provider: unique('egress'), adapter: 'openai', secretKey: 'sk-egress-test', baseURL }),
    });
  it('refuses loopback, private, link-local, unique-local and metadata addresses in every form', async () => {
    for (const [url, why] of [
      ['http://127.0.0.1:8080/v1', 'loopback'],
      ['http://2130706433/', 'loopback'],
      ['http://0177.0.0.1/', 'loopback'],
      ['http://[::1]/', 'loopback'],
      ['http://[::ffff:127.0.0.1]/', 'loopback'],
      ['http://localhost:11434/v1', 'loopback'],
      ['http://10.0.0.5/', 'private'],
      ['http://192.168.1.10/', 'private'],
      ['http://169.254.169.254/latest/meta-data', 'linkLocal'],
      ['http://[fe80::1]/', 'linkLocal'],
      ['http://[fd00:ec2::254]/', 'uniqueLocal'],
      ['http://100.100.100.200/', 'carrierGradeNat'],
      // IPv6 forms that carry an IPv4 address (the probe's four, then NAT64, 6to4 and Teredo)
      ['http://[::169.254.169.254]/latest', 'linkLocal'],
      ['http://[::127.0.0.1]:9/v1', 'loopback'],
      ['http://[::10.0.0.1]/v1', 'private'],
      ['http://[64:ff9b:1::a9fe:a9fe]/latest', 'linkLocal'],
      ['http://[64:ff9b::127.0.0.1]/', 'loopback'],
      ['http://[2002:a9fe:a9fe::1]/', 'linkLocal'],
      ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'loopback'],
    ]) {
      const res = await put(url!);
      expect(res.status, url).toBe(400);
      expect(res.body.message, url).toMatch(new RegExp(`^Invalid baseURL: .*${why} address$`));
    }
  });

  it('with TALLY_LLM_EGRESS=allowlist (as the suite runs), refuses a public address it does not list and accepts the listed one', async () => {
    // the default (public) mode accepts public addresses: unit/egress.test.ts
    const res = await put('https://8.8.8.8/v1');
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Invalid baseURL: 8.8.8.8 is not in TALLY_LLM_ALLOWED_HOSTS (TALLY_LLM_EGRESS=allowlist)');
    expect((await put('http://127.0.0.2:9/v1')).status).toBe(201);
  });
});

describe('bodies too wrong to list every problem', () => {
  it('answer 400, not 500: a rule whose filter is 21,000 values of the wrong type', async () => {
    const body = JSON.stringify({
      name: unique('rule'),
      target: 'observation',
      enabled: 'prototype',
      sampling: -1_000_000,
      filter: new Array(21_000).fill(0),
      evaluators: [{ evaluator: { name: 'x' } }],
    });
    const res = await raw('/api/public/unstable/evaluation-rules', { method: 'POST', headers: json, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_body', message: 'Invalid request body' });
  });
});
