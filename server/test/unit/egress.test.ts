import { describe, expect, it } from 'vitest';
import { checkBaseUrlShape, parseAllowList, refusedAddress, refusedHost } from '../../src/domain/llm/egress.ts';
import { baseUrlRefusal } from '../../src/egress/egress.ts';

const none = parseAllowList('');

describe('egress policy', () => {
  it('refuses every non-public address class, IPv4 and IPv6', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.100.100.200',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ]) {
      expect(refusedAddress(a, none), a).toMatch(/ is a \w+ address$/);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(refusedAddress(a, none), a).toBeNull();
  });

  it('reads decimal, octal and IPv4-mapped forms of loopback as loopback', () => {
    for (const raw of [
      'http://2130706433/v1',
      'http://0177.0.0.1/v1',
      'http://0x7f.1/',
      'http://[::ffff:127.0.0.1]:8080/',
      'http://127.1/',
    ]) {
      const shape = checkBaseUrlShape(raw);
      expect(shape.ok, raw).toBe(true);
      if (shape.ok) expect(refusedHost(shape.host, [shape.host], none), raw).toMatch(/loopback/);
    }
  });

  it('allows what TALLY_LLM_ALLOWED_HOSTS lists: host names, addresses and networks', () => {
    const list = parseAllowList('gateway.internal, 10.1.0.0/16, 127.0.0.1, fd00::/8');
    expect(refusedHost('gateway.internal', ['10.9.9.9'], list)).toBeNull();
    expect(refusedAddress('10.1.2.3', list)).toBeNull();
    expect(refusedAddress('10.2.0.1', list)).toMatch(/private/);
    expect(refusedAddress('127.0.0.1', list)).toBeNull();
    expect(refusedAddress('fd12::1', list)).toBeNull();
    expect(() => parseAllowList('10.0.0.0/99')).toThrow(/TALLY_LLM_ALLOWED_HOSTS/);
  });

  it('TALLY_LLM_EGRESS=allowlist refuses the public internet too, unless listed', () => {
    const list = { ...parseAllowList('gateway.internal, 127.0.0.2, 203.0.113.0/24'), onlyListed: true };
    expect(refusedAddress('8.8.8.8', list)).toBe('8.8.8.8 is not in TALLY_LLM_ALLOWED_HOSTS (TALLY_LLM_EGRESS=allowlist)');
    expect(refusedAddress('203.0.113.7', list)).toBeNull();
    expect(refusedAddress('127.0.0.2', list)).toBeNull();
    expect(refusedAddress('127.0.0.1', list)).toMatch(/loopback/);
    expect(refusedHost('api.openai.com', ['162.159.140.245'], list)).toMatch(/not in TALLY_LLM_ALLOWED_HOSTS/);
    expect(refusedHost('gateway.internal', ['8.8.8.8'], list)).toBeNull();
  });

  it('checks the scheme and refuses credentials in the URL', () => {
    expect(checkBaseUrlShape('ftp://example.com')).toEqual({ ok: false, reason: 'the scheme must be http or https, not ftp' });
    expect(checkBaseUrlShape('https://u:p@example.com').ok).toBe(false);
    expect(checkBaseUrlShape('not a url').ok).toBe(false);
  });

  it('refuses a host when any address it resolves to is refused', async () => {
    expect(refusedHost('api.example', ['8.8.8.8', '10.0.0.1'], none)).toBe('api.example resolves to 10.0.0.1, which is a private address');
    expect(await baseUrlRefusal('http://localhost:11434/v1', none)).toMatch(/^localhost resolves to .* loopback address$/);
    expect(await baseUrlRefusal('http://127.0.0.1:8080', parseAllowList('127.0.0.1'))).toBeNull();
  });
});

describe('egress fetch', () => {
  it('does not follow a redirect, and refuses a connection the policy forbids', async () => {
    const { createServer } = await import('node:http');
    const { egressFetch } = await import('../../src/egress/egress-fetch.ts');
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = server.address() as { port: number };
      const res = await egressFetch(parseAllowList('127.0.0.1'))(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: 'POST',
        body: '{}',
      });
      expect(res.status).toBe(302);
      expect(hits).toBe(1);
      const refused = await egressFetch(none)(`http://127.0.0.1:${port}/`).catch((e: Error) => e);
      expect((refused as Error & { cause?: { code?: string } }).cause?.code).toBe('EGRESS_REFUSED');
      expect(hits).toBe(1);
    } finally {
      server.close();
    }
  });
});

describe('IPv6 forms that carry an IPv4 address', () => {
  // each form, the verdict, and what the refusal names; the embedded address is judged as itself
  const table: [address: string, verdict: RegExp | null][] = [
    ['::169.254.169.254', /IPv4-compatible address embedding 169\.254\.169\.254, which is a linkLocal address/],
    ['::127.0.0.1', /IPv4-compatible address embedding 127\.0\.0\.1, which is a loopback address/],
    ['::10.0.0.1', /IPv4-compatible address embedding 10\.0\.0\.1, which is a private address/],
    ['::8.8.8.8', /IPv4-compatible address, which reaches IPv4 only through a translator/],
    ['::ffff:127.0.0.1', /^127\.0\.0\.1 is a loopback address$/],
    ['::ffff:169.254.169.254', /^169\.254\.169\.254 is a linkLocal address$/],
    ['::ffff:0:127.0.0.1', /IPv4-translated address .* embedding 127\.0\.0\.1/],
    ['64:ff9b::169.254.169.254', /NAT64 address \(64:ff9b::\/96\) embedding 169\.254\.169\.254/],
    ['64:ff9b::a00:1', /NAT64 address \(64:ff9b::\/96\) embedding 10\.0\.0\.1, which is a private address/],
    ['64:ff9b::8.8.8.8', /is a rfc6052 address/],
    ['64:ff9b:1::a9fe:a9fe', /local-use NAT64 address \(64:ff9b:1::\/48\) embedding 169\.254\.169\.254/],
    ['64:ff9b:1::808:808', /local-use NAT64 address .* reaches IPv4 only through a translator/],
    ['2002:7f00:1::1', /6to4 address \(2002::\/16\) embedding 127\.0\.0\.1/],
    ['2002:a9fe:a9fe::1', /6to4 address .* embedding 169\.254\.169\.254/],
    ['2002:808:808::1', /is a 6to4 address/],
    // Teredo: the client's address inverted in the last 32 bits (~127.0.0.1 = 80ff:fffe)
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', /Teredo address \(2001::\/32\) embedding 127\.0\.0\.1/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo address .* embedding 192\.0\.2\.45, which is a reserved address/],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', /is a teredo address/],
    ['2606:4700:4700::1111', null],
    ['2a00:1450:4001::200e', null],
  ];
  it.each(table)('%s', (address, verdict) => {
    const why = refusedAddress(address, none);
    if (verdict) expect(why).toMatch(verdict);
    else expect(why).toBeNull();
  });

  it('refuses them in a baseURL at write time and at call time', async () => {
    for (const raw of [
      'http://[::169.254.169.254]/latest',
      'http://[::127.0.0.1]:9/v1',
      'http://[::10.0.0.1]/v1',
      'http://[64:ff9b:1::a9fe:a9fe]/latest',
    ]) {
      expect(await baseUrlRefusal(raw, none), raw).toMatch(/embedding/);
      const shape = checkBaseUrlShape(raw);
      expect(shape.ok && refusedHost(shape.host, [shape.host], none), raw).toMatch(/embedding/);
    }
    const { egressFetch } = await import('../../src/egress/egress-fetch.ts');
    const refused = await egressFetch(parseAllowList('127.0.0.1'))('http://[::127.0.0.1]:9/v1').catch((e: Error) => e);
    expect((refused as Error & { cause?: { code?: string } }).cause?.code).toBe('EGRESS_REFUSED');
  });

  it('an allow-listed IPv4 address is not reachable through a translated form', () => {
    expect(refusedAddress('::127.0.0.2', parseAllowList('127.0.0.2'))).toMatch(/through a translator/);
  });
});
