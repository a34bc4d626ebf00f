// The key pair is checked as a pair: the secret finds the key, and the public key sent beside
// it must be that key's own (a deliberate difference from Langfuse, which accepts any).
import { describe, expect, inject, it } from 'vitest';
import { raw } from '../support/client.ts';
import { AUTH_MESSAGES, MISMATCHED_PUBLIC_KEY } from '../../src/http/auth.ts';

const header = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const { unknown: UNKNOWN, swapped: SWAPPED } = AUTH_MESSAGES;

describe('Basic credentials are checked as a pair', () => {
  const a = inject('projectA');
  const b = inject('projectB');

  const cases: [string, () => string, string][] = [
    ["another project's public key with a valid secret", () => header(b.publicKey, a.secretKey), MISMATCHED_PUBLIC_KEY],
    ['an unknown public key with a valid secret', () => header('nobody', a.secretKey), MISMATCHED_PUBLIC_KEY],
    ['a valid public key with its secret key as the username', () => header(a.secretKey, a.secretKey), MISMATCHED_PUBLIC_KEY],
    [
      'the pair with trailing :junk (split at the first colon, so the secret is wrong)',
      () => header(a.publicKey, `${a.secretKey}:junk`),
      UNKNOWN,
    ],
    ['the public key twice', () => header(a.publicKey, a.publicKey), SWAPPED],
    ['an unknown secret', () => header(a.publicKey, 'sk-lf-not-a-key-of-this-server'), UNKNOWN],
    ['swapped keys of an unknown pair (by their prefixes)', () => header('sk-lf-unknown', 'pk-lf-unknown'), SWAPPED],
    ["a valid public key with another project's secret", () => header(a.publicKey, b.secretKey), MISMATCHED_PUBLIC_KEY],
    ['the keys swapped', () => header(a.secretKey, a.publicKey), SWAPPED],
  ];

  for (const [name, auth, message] of cases) {
    it(`refuses ${name}`, async () => {
      for (const path of ['/api/public/models', '/api/public/observations']) {
        const res = await raw(path, { project: null, headers: { authorization: auth() } });
        expect(res.status, path).toBe(401);
        expect(res.body, path).toEqual({ message });
      }
      const ingest = await raw('/api/public/ingestion', {
        project: null,
        method: 'POST',
        headers: { authorization: auth(), 'content-type': 'application/json' },
        body: JSON.stringify({ batch: [] }),
      });
      expect(ingest).toMatchObject({ status: 401, body: { error: 'UnauthorizedError', message } });
    });
  }

  it("accepts each project's own pair", async () => {
    expect(
      (await raw('/api/public/models?limit=1', { project: null, headers: { authorization: header(a.publicKey, a.secretKey) } })).status,
    ).toBe(200);
    expect(
      (await raw('/api/public/models?limit=1', { project: null, headers: { authorization: header(b.publicKey, b.secretKey) } })).status,
    ).toBe(200);
  });

  it('reads the scheme case-insensitively (RFC 9110): basic, BASIC, bearer', async () => {
    const token = Buffer.from(`${a.publicKey}:${a.secretKey}`).toString('base64');
    for (const auth of [`basic ${token}`, `BASIC ${token}`, `bAsIc ${token}`]) {
      expect((await raw('/api/public/models?limit=1', { project: null, headers: { authorization: auth } })).status, auth.slice(0, 6)).toBe(
        200,
      );
    }
    // a Bearer public key still only authorises score creation: 403, not 401, whatever the case
    expect((await raw('/api/public/models?limit=1', { project: null, headers: { authorization: `bearer ${a.publicKey}` } })).status).toBe(
      403,
    );
  });

  it('refuses an empty username or password as undecodable', async () => {
    for (const auth of [header('', a.secretKey), header(a.publicKey, ''), `Basic ${Buffer.from(a.publicKey).toString('base64')}`]) {
      const res = await raw('/api/public/models', { project: null, headers: { authorization: auth } });
      expect(res).toMatchObject({
        status: 401,
        body: { message: AUTH_MESSAGES.undecodable },
      });
    }
  });
});
