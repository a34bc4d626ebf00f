// Request bodies before JSON.parse: bytes that are not UTF-8 (json-bytes.ts), nesting pruned
// unparsed (json-bytes.ts), and the process-wide budget for buffered bodies (body.ts).
import { isUtf8 } from 'node:buffer';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyBudget, readBody, type BodyError } from '../../src/http/body.ts';
import { NUDGE_EVERY_BYTES } from '../../src/http/body-gc.ts';
import { decodeUtf8, invalidJsonAt, pruneDeepJson } from '../../src/http/json-bytes.ts';
import { INVALID_UTF8_MARK } from '../../src/domain/unstorable-text.ts';
import { findTooDeep } from '../../src/http/json-depth.ts';
import { findUnstorableText } from '../../src/domain/unstorable-text.ts';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

/** a small deterministic generator, so a failure can be replayed */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('bytes that are not UTF-8', () => {
  it('are marked where a decoder would put U+FFFD, and nowhere else', () => {
    const random = rng(7);
    const pieces: number[][] = [
      [0xff],
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xe2, 0x82],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf0, 0x9f, 0x98],
      [0x80],
      [0xef, 0xbf, 0xbd],
      [0xe2, 0x82, 0xac],
      [0xf0, 0x9f, 0x98, 0x80],
      [0x41],
      [0xc3, 0xa9],
    ];
    for (let n = 0; n < 2000; n++) {
      const raw = Buffer.from(
        Array.from({ length: 1 + Math.floor(random() * 8) }, () => pieces[Math.floor(random() * pieces.length)]!).flat(),
      );
      const { text, invalid } = decodeUtf8(raw);
      expect(text.replaceAll(INVALID_UTF8_MARK, '\ufffd'), raw.toString('hex')).toBe(new TextDecoder().decode(raw));
      expect(invalid).toBe(!isUtf8(raw));
      expect(text.includes(INVALID_UTF8_MARK)).toBe(invalid);
    }
  });

  it('leave a U+FFFD the client sent alone, and name the field that held them', () => {
    expect(decodeUtf8(Buffer.from('{"a":"\ufffd"}'))).toEqual({ text: '{"a":"\ufffd"}', invalid: false });
    const { text, invalid } = decodeUtf8(bytes('{"ok":"\ufffd","model":"gpt', [0xff, 0xfe], '"}'));
    expect(invalid).toBe(true);
    const parsed = JSON.parse(text);
    expect(parsed.ok).toBe('\ufffd');
    expect(findUnstorableText(parsed)).toEqual({
      code: 'invalid_string',
      path: ['model'],
      message: 'Text contains bytes that are not valid UTF-8',
    });
    expect(findUnstorableText(JSON.parse(decodeUtf8(bytes('{"k', [0xc0], '":1}')).text))).toMatchObject({
      code: 'invalid_key',
      message: 'Key contains bytes that are not valid UTF-8',
    });
    // an escaped high surrogate just before them pairs with the first mark, not with both
    expect(findUnstorableText(JSON.parse(decodeUtf8(bytes('{"a":"\\ud800', [0xff], '"}')).text))?.message).toBe(
      'Text contains bytes that are not valid UTF-8',
    );
    // a lone surrogate the client escaped keeps its own message
    expect(findUnstorableText({ a: '\ud800' })?.message).toMatch(/unpaired UTF-16 surrogate/);
  });
});

describe('JSON validity check for pruned parts', () => {
  it('agrees with JSON.parse', () => {
    const samples = [
      '[]',
      '{}',
      '[1,2.5e-3,-0,"a\\u00e9\\n",true,false,null,{"a":[{}]}]',
      '{"a":{"b":[[],[{}]]}}',
      ' [ 1 , { "x" : "y" } ] ',
      '[1,]',
      '[,1]',
      '{"a"}',
      '{"a":}',
      '{"a" 1}',
      '{1:2}',
      '[01]',
      '[1.]',
      '[.5]',
      '[-]',
      '[1e]',
      '["\\x"]',
      '["\\u12g4"]',
      '["a\nb"]',
      '[tru]',
      '[nul]',
      '[1 2]',
      '{"a":1,}',
      '[[]',
      '[]]',
      '[}',
      '{]',
      '["unterminated]',
      '[] []',
      '[Infinity]',
      '[NaN]',
      '[+1]',
      '[1e+5,2E-5]',
    ];
    for (const s of samples) {
      let valid = true;
      try {
        JSON.parse(s);
      } catch {
        valid = false;
      }
      expect(invalidJsonAt(Buffer.from(s), 0, Buffer.byteLength(s)) === -1, s).toBe(valid);
    }
  });
});

describe('nesting pruned before parsing', () => {
  const nest = (n: number, inner = '') => '['.repeat(n) + inner + ']'.repeat(n);

  it('returns the same bytes when nothing is deeper than kept', () => {
    const raw = Buffer.from(JSON.stringify({ a: [[['[[[[', '"\\']]], b: { c: '{{{{' } }));
    expect(pruneDeepJson(raw, 4)).toBe(raw);
  });

  it('leaves the same first too-deep container at the same path, per request and per batch event', () => {
    const random = rng(11);
    let nodes = 0; // at most a few hundred containers per body
    const value = (depth: number): unknown => {
      if (depth <= 0 || nodes > 400 || random() < 0.02) return random() < 0.5 ? 'x[{"\\' : 1;
      nodes++;
      // mostly one child, now and then a few: deep spines with branches
      const n = random() < 0.9 ? 1 : 2 + Math.floor(random() * 2);
      if (random() < 0.5) return Array.from({ length: n }, () => value(depth - 1));
      return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}"]`, value(depth - 1)]));
    };
    for (let n = 0; n < 300; n++) {
      nodes = 0;
      const body = {
        batch: [
          { id: 'a', body: value(Math.floor(random() * 130)) },
          { id: 'b', body: value(Math.floor(random() * 130)) },
        ],
      };
      const raw = Buffer.from(JSON.stringify(body));
      const pruned = pruneDeepJson(raw, 103);
      expect(Buffer.isBuffer(pruned)).toBe(true);
      const parsed = JSON.parse(String(pruned));
      expect(findTooDeep(parsed)).toEqual(findTooDeep(body));
      for (const i of [0, 1]) expect(findTooDeep(parsed.batch[i], ['batch', i])).toEqual(findTooDeep(body.batch[i], ['batch', i]));
    }
  });

  it('turns megabytes of nesting into a few bytes, and several deep parts each', () => {
    const raw = Buffer.from(`{"a":${nest(2_000_000)},"s":"[[[\\"","b":[${nest(500, '1,"x"')}, 2]}`);
    const pruned = pruneDeepJson(raw, 103) as Buffer;
    expect(pruned.length).toBeLessThan(1000);
    const parsed = JSON.parse(String(pruned));
    expect(parsed.s).toBe('[[["');
    expect(findTooDeep(parsed)?.path).toEqual(['a', ...Array(99).fill(0)]);
    expect(findTooDeep({ b: parsed.b })?.path).toEqual(['b', ...Array(99).fill(0)]);
    expect(parsed.b[1]).toBe(2);
  });

  it('does not make an invalid body valid', () => {
    for (const text of [
      `{"a":${'['.repeat(200)}1,,${']'.repeat(200)}}`,
      `{"a":${'['.repeat(200)}}`,
      `{"a":${'['.repeat(200)}"x${']'.repeat(200)}}`,
      `{"a":${'['.repeat(200)}1}${']'.repeat(199)}}`,
    ]) {
      const pruned = pruneDeepJson(Buffer.from(text), 103);
      if (Buffer.isBuffer(pruned)) expect(() => JSON.parse(String(pruned)), text.slice(0, 30)).toThrow();
      else expect(pruned.invalidAt).toBeGreaterThan(0);
    }
  });
});

describe('the budget for buffered bodies', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  /** a server reading each body under `budget`; it answers the length read or the error */
  async function serve(budget: BodyBudget, limit = 2_000_000): Promise<number> {
    server = createServer((req, res) => {
      const claim = budget.open();
      res.on('close', () => budget.close(claim));
      readBody(req, budget, claim, limit).then(
        (b) => setTimeout(() => res.end(JSON.stringify({ status: 200, length: b.length })), 50),
        (e: BodyError) => res.end(JSON.stringify({ status: e.status, type: e.type, message: e.message })),
      );
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    return (server.address() as AddressInfo).port;
  }

  /** a POST whose body is written in `pieces`, `gapMs` apart */
  function post(port: number, pieces: Buffer[], headers: Record<string, string> = {}, gapMs = 0): Promise<any> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(JSON.parse(text)));
      });
      req.on('error', reject);
      let i = 0;
      const next = () => {
        if (i === pieces.length) return void req.end();
        req.write(pieces[i++]);
        setTimeout(next, gapMs);
      };
      next();
    });
  }

  it('reads bodies of known and unknown length, compressed or not, and gives every byte back', async () => {
    const budget = new BodyBudget(4 * 1024 * 1024, 5000);
    const port = await serve(budget);
    const body = Buffer.alloc(1_500_000, 'a');
    expect(await post(port, [body], { 'content-length': String(body.length) })).toEqual({ status: 200, length: body.length });
    expect(await post(port, [body.subarray(0, 700_000), body.subarray(700_000)])).toEqual({ status: 200, length: body.length });
    expect(await post(port, [gzipSync(body)], { 'content-encoding': 'gzip' })).toEqual({ status: 200, length: body.length });
    expect(await post(port, [gzipSync(Buffer.alloc(20_000_000))], { 'content-encoding': 'gzip' })).toMatchObject({
      status: 413,
      type: 'entity.too.large',
    });
    expect(await post(port, [Buffer.from('x')], { 'content-encoding': 'gzip' })).toMatchObject({ status: 400 });
    expect(await post(port, [Buffer.from('x')], { 'content-encoding': 'snappy' })).toMatchObject({
      status: 415,
      type: 'encoding.unsupported',
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(budget.used).toBe(0);
  });

  it('asks V8 for a scavenge once every NUDGE_EVERY_BYTES of body bytes, kept or read off and dropped', async () => {
    const calls: unknown[] = [];
    const g = globalThis as { gc?: unknown };
    const had = g.gc;
    g.gc = (o: unknown) => calls.push(o);
    try {
      const budget = new BodyBudget(64 * 1024 * 1024, 5000);
      const port = await serve(budget, 8 * 1024 * 1024);
      const piece = Buffer.alloc(1024 * 1024, 'a');
      // 6 MB kept (within the limit), 6 times over
      for (let i = 0; i < 6; i++) expect(await post(port, Array(6).fill(piece))).toEqual({ status: 200, length: 6 * piece.length });
      const kept = calls.length;
      expect(kept).toBeGreaterThanOrEqual(Math.floor((36 * piece.length) / NUDGE_EVERY_BYTES) - 1);
      expect(calls.every((o) => (o as { type?: string }).type === 'minor')).toBe(true);
      // 40 MB declared over the limit: refused at once and read off, every byte still counted
      const big = Buffer.alloc(40 * 1024 * 1024, 'b');
      expect(await post(port, [big], { 'content-length': String(big.length) })).toMatchObject({ status: 413 });
      expect(calls.length - kept).toBeGreaterThanOrEqual(Math.floor(big.length / NUDGE_EVERY_BYTES) - 1);
    } finally {
      g.gc = had;
    }
  });

  it('makes a request wait while the budget is spent, then read on', async () => {
    const budget = new BodyBudget(1024 * 1024, 5000);
    const port = await serve(budget);
    const big = Buffer.alloc(900_000, 'a');
    // both known in length: the second waits until the first's response is over, holding nothing
    const both = await Promise.all([
      post(port, [big], { 'content-length': String(big.length) }),
      post(port, [big], { 'content-length': String(big.length) }),
    ]);
    expect(both).toEqual([
      { status: 200, length: big.length },
      { status: 200, length: big.length },
    ]);
  });

  it('answers 503 to the younger of two requests that each wait for the bytes the other holds', async () => {
    const budget = new BodyBudget(1024 * 1024, 5000);
    const port = await serve(budget);
    const piece = Buffer.alloc(300_000, 'a');
    const first = post(port, [piece, piece, piece], {}, 100);
    await new Promise((r) => setTimeout(r, 30));
    const second = post(port, [piece, piece, piece], {}, 100);
    const [a, b] = await Promise.all([first, second]);
    expect(a).toEqual({ status: 200, length: 900_000 });
    expect(b).toMatchObject({ status: 503, type: 'body.busy' });
  });

  it('still answers 413 to a request that gave way, when its body turns out too large', async () => {
    const budget = new BodyBudget(1024 * 1024, 5000);
    const port = await serve(budget);
    const piece = Buffer.alloc(300_000, 'a');
    const first = post(port, [piece, piece, piece], {}, 100);
    await new Promise((r) => setTimeout(r, 30));
    // the younger gives way, is read on without being kept, and passes the 2 MB limit
    const second = post(port, Array(10).fill(piece), {}, 100);
    const bomb = post(port, [gzipSync(Buffer.alloc(50_000_000))], { 'content-encoding': 'gzip' });
    const [a, b, c] = await Promise.all([first, second, bomb]);
    expect(a).toEqual({ status: 200, length: 900_000 });
    expect(b).toMatchObject({ status: 413, type: 'entity.too.large' });
    expect(c).toMatchObject({ status: 413, type: 'entity.too.large' });
    await new Promise((r) => setTimeout(r, 100));
    expect(budget.used).toBe(0);
  });

  it('never stalls: 60 requests of every kind at once on a small budget all end, and it ends empty', async () => {
    const budget = new BodyBudget(1024 * 1024, 2000);
    const port = await serve(budget, 1_500_000);
    const random = rng(5);
    const runs = Array.from({ length: 60 }, (_, i) => {
      const size = Math.floor(random() * 2_500_000);
      const body = Buffer.alloc(size, 97 + (i % 26));
      const kind = Math.floor(random() * 3);
      const pieces = (b: Buffer) => {
        const n = 1 + Math.floor(random() * 4);
        const at = Array.from({ length: n - 1 }, () => Math.floor(random() * b.length)).sort((x, y) => x - y);
        return [0, ...at].map((a, k) => b.subarray(a, [...at, b.length][k]));
      };
      const gap = Math.floor(random() * 40);
      const expected = size > 1_500_000 ? [413] : [200, 503];
      const sent =
        kind === 0
          ? post(port, pieces(body), { 'content-length': String(size) }, gap)
          : kind === 1
            ? post(port, pieces(body), {}, gap)
            : post(port, pieces(gzipSync(body)), { 'content-encoding': 'gzip' }, gap);
      return sent.then((r) => ({ r, expected, size }));
    });
    for (const { r, expected, size } of await Promise.all(runs)) {
      expect(expected, JSON.stringify(r)).toContain(r.status);
      if (r.status === 200) expect(r.length).toBe(size);
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(budget.used).toBe(0);
  }, 30_000);

  it('answers 503 to a request that waited too long', async () => {
    const budget = new BodyBudget(1024 * 1024, 300);
    const port = await serve(budget);
    const big = Buffer.alloc(1_000_000, 'a');
    // the first holds the budget while its client dawdles
    const slow = post(port, [big.subarray(0, 10), big.subarray(10)], { 'content-length': String(big.length) }, 1000);
    await new Promise((r) => setTimeout(r, 50));
    expect(await post(port, [big], { 'content-length': String(big.length) })).toMatchObject({ status: 503, type: 'body.busy' });
    expect(await slow).toEqual({ status: 200, length: big.length });
  });
});
