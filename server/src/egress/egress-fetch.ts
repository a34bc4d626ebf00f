// A `fetch` for provider SDKs that only connects where the egress policy allows: undici's own
// fetch (the one inside Node, as a declared dependency so its Agent can be configured) through
// an Agent whose `lookup` is egressLookup, so the address actually connected to is the one
// checked, after any DNS change. Redirects are not followed (`redirect: 'manual'`): a provider
// API does not redirect, and a redirect must not lead a call to a refused address. A connection
// to an IP literal skips `lookup`, so those are checked here first.
import { isIP } from 'node:net';
import type { Agent } from 'undici';
import { refusedHost, type AllowList } from '../domain/llm/egress.ts';
import { egressLookup } from './egress.ts';

// loaded on the first call out (~110 modules an instance that calls no provider never needs)
let undici: Promise<typeof import('undici')> | null = null;

export function egressFetch(list: AllowList): typeof fetch {
  let dispatcher: Agent | undefined;
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(host)) {
      const why = refusedHost(host, [host], list);
      if (why)
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error(`refused by the egress policy: ${why}`), { code: 'EGRESS_REFUSED' }),
        });
    }
    undici ??= import('undici');
    const { Agent, fetch: undiciFetch } = await undici;
    dispatcher ??= new Agent({ connect: { lookup: egressLookup(list) as never } });
    return undiciFetch(input as never, { ...(init as object), redirect: 'manual', dispatcher } as never);
  }) as unknown as typeof fetch;
}
