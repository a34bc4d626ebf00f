// Where a connection's baseURL may point. Tally calls the URL a user stored with the user's
// key, from inside the deployment's network: a URL that reaches loopback, a private or
// link-local network or a cloud metadata address would turn a connection into a way to read
// internal services. Only globally routable unicast addresses are allowed, unless the operator
// lists a host, address or network in TALLY_LLM_ALLOWED_HOSTS. Address classes come from
// ipaddr.js (the library Express's proxy-addr uses), which also reads IPv4-mapped IPv6.
import ipaddr from 'ipaddr.js';

export interface AllowList {
  hosts: Set<string>;
  networks: [ipaddr.IPv4 | ipaddr.IPv6, number][];
  /**
   * TALLY_LLM_EGRESS=allowlist: only what the list names may be reached, the public internet
   * included (a locked-down deployment that calls one gateway; and every test server, so that no
   * test can reach beyond loopback whatever a connection says)
   */
  onlyListed?: boolean;
}

export class AllowListError extends Error {}

/** `TALLY_LLM_ALLOWED_HOSTS`: comma-separated host names, IP addresses and CIDR networks */
export function parseAllowList(spec: string | undefined): AllowList {
  const list: AllowList = { hosts: new Set(), networks: [] };
  for (const raw of (spec ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    if (raw.includes('/')) {
      try {
        list.networks.push(ipaddr.parseCIDR(raw));
      } catch {
        throw new AllowListError(`TALLY_LLM_ALLOWED_HOSTS: "${raw}" is not a CIDR network`);
      }
    } else if (ipaddr.isValid(raw)) {
      const a = ipaddr.process(raw);
      list.networks.push([a, a.kind() === 'ipv4' ? 32 : 128]);
    } else {
      list.hosts.add(raw.toLowerCase());
    }
  }
  return list;
}

const inList = (address: ipaddr.IPv4 | ipaddr.IPv6, list: AllowList) =>
  list.networks.some(([net, bits]) => net.kind() === address.kind() && (address as ipaddr.IPv4).match(net as ipaddr.IPv4, bits));

/** why Tally must not connect to this address (null: it may) */
export function refusedAddress(address: string, list: AllowList): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const a = ipaddr.process(address); // ::ffff:127.0.0.1 is 127.0.0.1
  if (inList(a, list)) return null;
  const range = a.range();
  if (range !== 'unicast') return `${a.toString()} is a ${range} address`;
  return list.onlyListed ? `${a.toString()} is not in TALLY_LLM_ALLOWED_HOSTS (TALLY_LLM_EGRESS=allowlist)` : null;
}

export type BaseUrlCheck = { ok: true; url: URL; host: string } | { ok: false; reason: string };

/**
 * The URL's shape: http(s), no credentials in it. WHATWG URL parsing turns decimal and octal
 * IPv4 forms (http://2130706433, http://0177.0.0.1) into dotted ones before anything else reads them.
 */
export function checkBaseUrlShape(raw: string): BaseUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: `the scheme must be http or https, not ${url.protocol.slice(0, -1)}` };
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL are not allowed; use the API key or custom headers' };
  return { ok: true, url, host: url.hostname.replace(/^\[|\]$/g, '').toLowerCase() };
}

/** the decision for a host and the addresses it resolved to: every one must be allowed */
export function refusedHost(host: string, addresses: string[], list: AllowList): string | null {
  if (list.hosts.has(host)) return null;
  // a name that does not resolve now cannot be called now; when it does, the call-time check
  // (services/egress.ts egressLookup) decides on the address it resolves to then
  if (!addresses.length) return null;
  for (const a of addresses) {
    const why = refusedAddress(a, list);
    if (why) return ipaddr.isValid(host) ? why : `${host} resolves to ${why.replace(/^\S+ is/, (m) => m.replace(' is', ', which is'))}`;
  }
  return null;
}
