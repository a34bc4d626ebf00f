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
  for (const raw of (spec ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
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

const v4 = (hi: number, lo: number) => ipaddr.fromByteArray([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]) as ipaddr.IPv4;

/**
 * The IPv4 address an IPv6 form carries, where a translator, tunnel or the kernel's own stack
 * may deliver the packet to it. ipaddr.process reads only the mapped form (::ffff:a.b.c.d); the
 * others would reach 127.0.0.1 or 169.254.169.254 through a NAT64 gateway or an old stack.
 */
export function embeddedIPv4(a: ipaddr.IPv6): { form: string; address: ipaddr.IPv4 } | null {
  const p = a.parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  // ::a.b.c.d (RFC 4291's deprecated IPv4-compatible form); :: and ::1 are read as IPv6 classes
  if (zeros(0, 6) && !(p[6] === 0 && p[7]! <= 1)) return { form: 'an IPv4-compatible address', address: v4(p[6]!, p[7]!) };
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0)
    return { form: 'an IPv4-translated address (::ffff:0:a.b.c.d)', address: v4(p[6]!, p[7]!) };
  // NAT64: the well-known prefix 64:ff9b::/96 and the local-use 64:ff9b:1::/48 (RFC 8215), whose
  // translators sit inside the deployment's network; the last 32 bits as in a /96 prefix
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return { form: 'a NAT64 address (64:ff9b::/96)', address: v4(p[6]!, p[7]!) };
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 1)
    return { form: 'a local-use NAT64 address (64:ff9b:1::/48)', address: v4(p[6]!, p[7]!) };
  if (p[0] === 0x2002) return { form: 'a 6to4 address (2002::/16)', address: v4(p[1]!, p[2]!) };
  // Teredo (2001::/32) carries the client's address inverted in its last 32 bits
  if (p[0] === 0x2001 && p[1] === 0) return { form: 'a Teredo address (2001::/32)', address: v4(~p[6]! & 0xffff, ~p[7]! & 0xffff) };
  return null;
}

/**
 * Forms that only exist to reach IPv4 through a translator or tunnel: refused whatever they
 * embed, since the IPv4 address a local-use prefix maps to is the operator's to define.
 */
const TRANSLATED_ONLY = new Set([
  'an IPv4-compatible address',
  'an IPv4-translated address (::ffff:0:a.b.c.d)',
  'a local-use NAT64 address (64:ff9b:1::/48)',
]);

/**
 * ipaddr.js reads a dotted tail only after ::ffff:; the WHATWG URL parser writes every IPv6
 * form (::127.0.0.1, 64:ff9b::10.0.0.1) as hex groups, as a baseURL's host already arrives
 */
function canonicalIPv6(address: string): string {
  if (!address.includes(':') || !address.includes('.')) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
}

/** why Tally must not connect to this address (null: it may) */
export function refusedAddress(address: string, list: AllowList): string | null {
  address = canonicalIPv6(address);
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const a = ipaddr.process(address); // ::ffff:127.0.0.1 is 127.0.0.1
  if (inList(a, list)) return null;
  const inner = a.kind() === 'ipv6' ? embeddedIPv4(a as ipaddr.IPv6) : null;
  if (inner) {
    const why = refusedAddress(inner.address.toString(), { ...list, onlyListed: false });
    if (why) return `${a.toString()} is ${inner.form} embedding ${why.replace(' is ', ', which is ')}`;
    if (TRANSLATED_ONLY.has(inner.form))
      return `${a.toString()} is ${inner.form}, which reaches IPv4 only through a translator; use the IPv4 address`;
  }
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
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: `the scheme must be http or https, not ${url.protocol.slice(0, -1)}` };
  if (url.username || url.password)
    return { ok: false, reason: 'credentials in the URL are not allowed; use the API key or custom headers' };
  return { ok: true, url, host: url.hostname.replace(/^\[|\]$/g, '').toLowerCase() };
}

/** the decision for a host and the addresses it resolved to: every one must be allowed */
export function refusedHost(host: string, addresses: string[], list: AllowList): string | null {
  if (list.hosts.has(host)) return null;
  // a name that does not resolve now cannot be called now; when it does, the call-time check
  // (egress/egress.ts egressLookup) decides on the address it resolves to then
  if (!addresses.length) return null;
  for (const a of addresses) {
    const why = refusedAddress(a, list);
    if (why) return ipaddr.isValid(host) ? why : `${host} resolves to ${why.replace(/^\S+ is/, (m) => m.replace(' is', ', which is'))}`;
  }
  return null;
}
