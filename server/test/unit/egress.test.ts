import { describe, expect, it } from 'vitest';
import { checkBaseUrlShape, parseAllowList, refusedAddress, refusedHost } from '../../src/domain/llm/egress.ts';
import { baseUrlRefusal } from '../../src/services/egress.ts';

const none = parseAllowList('');

describe('egress policy', () => {
  it('refuses every non-public address class, IPv4 and IPv6', () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255',
      '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
      expect(refusedAddress(a, none), a).toMatch(/ is a \w+ address$/);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(refusedAddress(a, none), a).toBeNull();
  });

  it('reads decimal, octal and IPv4-mapped forms of loopback as loopback', () => {
    for (const raw of ['http://2130706433/v1', 'http://0177.0.0.1/v1', 'http://0x7f.1/', 'http://[::ffff:127.0.0.1]:8080/', 'http://127.1/']) {
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
    const { egressFetch } = await import('../../src/services/egress-fetch.ts');
    let hits = 0;
    const server = createServer((_req, res) => { hits++; res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end(); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = server.address() as { port: number };
      const res = await egressFetch(parseAllowList('127.0.0.1'))(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', body: '{}' });
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
