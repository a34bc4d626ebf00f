// The typed Tally client: every operation and type comes from generated/ (hey-api, from
// the spec); this file only adds Basic auth from a key pair.
import { createClient, type Client } from '../generated/client/client/index.ts';

export * from '../generated/client/index.ts';

export interface TallyOptions {
  baseUrl: string;
  publicKey: string;
  secretKey: string;
  fetch?: typeof fetch;
}

/** A client for one project. Pass it as `client` to any operation: `modelsList({ client })`. */
export function createTallyClient(opts: TallyOptions): Client {
  const auth = 'Basic ' + Buffer.from(`${opts.publicKey}:${opts.secretKey}`).toString('base64');
  return createClient({ baseUrl: opts.baseUrl.replace(/\/$/, ''), headers: { authorization: auth }, fetch: opts.fetch });
}
