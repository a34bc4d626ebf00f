import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { findTooDeep, MAX_JSON_DEPTH } from '../../src/domain/json-depth.ts';
import { pathProblem } from '../../src/http/request-path.ts';
import { findInexactCount } from '../../src/domain/usage/exact-counts.ts';
import { listen } from '../../src/server.ts';

const nest = (n: number): unknown => (n <= 1 ? [] : [nest(n - 1)]);

describe('JSON depth limit', () => {
  it('accepts exactly the limit and names the first container past it', () => {
    expect(findTooDeep({ a: nest(MAX_JSON_DEPTH - 1) })).toBeNull();
    const issue = findTooDeep({ ok: 1, a: nest(MAX_JSON_DEPTH) }, ['body']);
    expect(issue?.code).toBe('too_big');
    expect(issue?.path).toEqual(['body', 'a', ...Array(MAX_JSON_DEPTH - 1).fill(0)]);
  });

  it('walks a value far deeper than the stack allows without overflowing', () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(findTooDeep(deep)?.path.length).toBe(MAX_JSON_DEPTH);
  });
});

describe('request path', () => {
  it('refuses invalid percent-encoding and NUL, and passes valid escapes', () => {
    expect(pathProblem('/api/public/models/%E0%A4%A')).toMatch(/percent-encoded/);
    expect(pathProblem('/api/public/models/%')).toMatch(/percent-encoded/);
    expect(pathProblem('/api/public/models/%ED%A0%80')).toMatch(/percent-encoded/); // a lone surrogate's UTF-8
    expect(pathProblem('/api/public/traces/a%00b')).toMatch(/NUL/);
    expect(pathProblem('/api/public/traces/a%20b%C3%A9')).toBeNull();
    expect(pathProblem('/api/public/models')).toBeNull();
  });
});

describe('usage counts beyond 2^53 - 1', () => {
  it('are found in flat maps, detail maps and the legacy object', () => {
    expect(findInexactCount({ input: 2 ** 53 }, ['usageDetails'])).toEqual({ path: ['usageDetails', 'input'], value: 2 ** 53 });
    expect(findInexactCount({ prompt_tokens: 1, prompt_tokens_details: { cached_tokens: 1e300 } }, [])?.path).toEqual([
      'prompt_tokens_details',
      'cached_tokens',
    ]);
    expect(findInexactCount({ input: Number.MAX_SAFE_INTEGER, output: 1.5 }, [])).toBeNull();
  });
});

describe('request timeout', () => {
  it('closes a connection whose body stops short of its Content-Length', async () => {
    let handled = false;
    // like express.json(), the handler waits for the whole body before it answers
    const server = await listen(
      (req, res) => {
        req.resume();
        req.on('end', () => {
          handled = true;
          res.end();
        });
      },
      0,
      '127.0.0.1',
      1,
    );
    try {
      const { port } = server.address() as { port: number };
      const started = Date.now();
      const outcome = await new Promise<{ data: string; ms: number }>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            'POST /api/public/ingestion HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"batch":',
          );
        });
        let data = '';
        socket.on('data', (d) => {
          data += d;
        });
        socket.on('close', () => resolve({ data, ms: Date.now() - started }));
        socket.on('error', reject);
        setTimeout(() => reject(new Error('connection still open after 10 s')), 10_000);
      });
      expect(outcome.data).toMatch(/^HTTP\/1.1 408/);
      expect(outcome.ms).toBeLessThan(5_000);
      expect(handled).toBe(false);
    } finally {
      server.close();
    }
  });
});
