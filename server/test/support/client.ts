// The generated client (the class TallySdk that the SDK package wraps), pointed at the test
// server: tests speak to Tally the way an integrator's code does. As in the SDK, a non-2xx
// throws; `throwOnError: false` on a call returns { data, error, response } instead.
import { inject } from 'vitest';
import { createClient } from '../../../generated/client/client/index.ts';
import { TallySdk } from '../../../generated/client/sdk.gen.ts';
import { basic } from './start.ts';

export function clientFor(project: 'projectA' | 'projectB') {
  return new TallySdk({
    client: createClient({ baseUrl: inject('baseUrl'), headers: { authorization: basic(inject(project)) }, throwOnError: true }),
  });
}

/** raw fetch for what the SDK would refuse to send (bad auth, malformed bodies) */
export async function raw(path: string, init: RequestInit & { project?: 'projectA' | 'projectB' | null } = {}) {
  const headers = new Headers(init.headers);
  if (init.project !== null) headers.set('authorization', basic(inject(init.project ?? 'projectA')));
  const res = await fetch(inject('baseUrl') + path, { ...init, headers });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

export const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
