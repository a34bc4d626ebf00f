#!/usr/bin/env node
// The conformance suite's command line.
//   in process (make test):   node conformance/run.ts --in-process
//   any deployment:           npx tally-conformance --base-url https://tally.example --public-key pk-... --secret-key sk-...
//                             (or make conformance BASE_URL=... PUBLIC_KEY=... SECRET_KEY=...)
// Prints one line per case, a diff for each failure, and "N passed, N failed, N skipped"; exits
// non-zero on a failure; `--junit <file>` also writes JUnit XML for CI.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { junitXml } from './junit.ts';
import { startGateway, type Gateway } from './gateway.ts';
import { replay, type Outcome, type Target } from './replay.ts';

const { values } = parseArgs({
  options: {
    'in-process': { type: 'boolean', default: false },
    'base-url': { type: 'string' },
    'public-key': { type: 'string' },
    'secret-key': { type: 'string' },
    grep: { type: 'string' },
    junit: { type: 'string' },
    // the fake LLM gateway: where it listens, and the URL the server reaches it at (a remote
    // server needs both, and TALLY_LLM_ALLOWED_HOSTS allowing that host); in process it listens
    // on 127.0.0.2, the only loopback address the in-process server is allowed to call
    'gateway-listen': { type: 'string' },
    'gateway-url': { type: 'string' },
  },
});

async function main() {
  const started = performance.now();
  let target: Target;
  let stop = async () => {};
  let gateway: Gateway | undefined;
  if (values['in-process']) {
    gateway = await startGateway('127.0.0.2');
    process.env.TALLY_LLM_ALLOWED_HOSTS = '127.0.0.2';
    const { startTestServer } = await import('../server/test/support/start.ts');
    const { server, projectA } = await startTestServer();
    target = { baseUrl: server.url, publicKey: projectA.publicKey, secretKey: projectA.secretKey, gateway };
    stop = async () => {
      await server.close();
      await gateway!.close();
    };
  } else {
    const baseUrl = values['base-url'];
    const publicKey = values['public-key'];
    const secretKey = values['secret-key'];
    if (!baseUrl || !publicKey || !secretKey) {
      console.error(
        'usage: npx tally-conformance --base-url <url> --public-key <pk-...> --secret-key <sk-...> [--grep <text>] [--junit <file>] [--gateway-url <url> --gateway-listen <host:port>]  (or --in-process)',
      );
      process.exit(2);
    }
    target = { baseUrl: baseUrl.replace(/\/$/, ''), publicKey, secretKey };
    if (values['gateway-url']) {
      const [host, port] = (values['gateway-listen'] ?? '0.0.0.0:0').split(':');
      gateway = await startGateway(host, Number(port ?? 0), values['gateway-url']);
      target.gateway = gateway;
      stop = () => gateway!.close();
    }
  }
  const grep = values.grep;
  let outcomes: Outcome[];
  try {
    outcomes = await replay(target, grep ? (c) => `${c.op.operationId} ${c.status} ${c.name}`.includes(grep) : undefined);
  } finally {
    await stop();
  }
  let passed = 0,
    failed = 0,
    skipped = 0;
  for (const o of outcomes) {
    const label = `${o.case.op.operationId} ${o.case.status} ${o.case.name}`;
    if (o.skipped) {
      skipped++;
      console.log(`- ${label} (skipped: ${o.skipped})`);
    } else if (o.ok) {
      passed++;
      console.log(`✓ ${label}`);
    } else {
      failed++;
      console.log(`✗ ${label}\n  ${o.problems.join('\n  ')}`);
    }
  }
  console.log(`\nconformance: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  if (values.junit) writeFileSync(values.junit, junitXml(outcomes, performance.now() - started));
  process.exit(failed ? 1 : 0);
}

await main();
