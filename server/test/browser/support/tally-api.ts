// The running Tally's public API with its key pair, for what a test sets up or checks around the page.
import type { RunningTally } from './make-run.ts';

export async function api(tally: RunningTally, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${tally.url}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${tally.publicKey}:${tally.secretKey}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
