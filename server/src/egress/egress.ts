// The egress check with DNS: resolve the baseURL's host and decide on every address. Used when a
// connection is written; the adapters' HTTP agent runs the same decision on the address it
// actually connects to (egressLookup), so a DNS answer that changes later cannot reach a
// refused address.
import { lookup } from 'node:dns/promises';
import { lookup as lookupCallback, type LookupAddress, type LookupOptions } from 'node:dns';
import { checkBaseUrlShape, refusedHost, type AllowList } from '../domain/llm/egress.ts';

/** null when the URL may be called, else why not (for `Invalid baseURL: <reason>`) */
export async function baseUrlRefusal(raw: string, list: AllowList): Promise<string | null> {
  const shape = checkBaseUrlShape(raw);
  if (!shape.ok) return shape.reason;
  let addresses: string[] = [];
  try {
    addresses = (await lookup(shape.host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    addresses = [];
  }
  return refusedHost(shape.host, addresses, list);
}

/** a `lookup` for http.Agent / undici: resolves, then refuses a disallowed address with an error */
export function egressLookup(list: AllowList) {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    lookupCallback(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list2 = addresses as LookupAddress[];
      const why = refusedHost(
        hostname.toLowerCase(),
        list2.map((a) => a.address),
        list,
      );
      if (why) return callback(Object.assign(new Error(`refused by the egress policy: ${why}`), { code: 'EGRESS_REFUSED' }), '');
      if (options.all) return callback(null, list2);
      callback(null, list2[0]!.address, list2[0]!.family);
    });
  };
}
