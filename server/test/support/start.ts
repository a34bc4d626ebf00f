// Starts a server in process the way tests and the in-process conformance run need it:
// port 0, silent logs, every response checked against the spec, and two projects.
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { addKeyPair, createProject, type KeyPair } from '../../src/store/projects.ts';

export interface TestServer {
  server: RunningServer;
  projectA: KeyPair;
  projectB: KeyPair;
}

/** the test server's key for LLM connection secrets (on PostgreSQL there is none by default) */
export const TEST_ENCRYPTION_KEY = process.env.ENCRYPTION_KEY || '0123456789abcdef'.repeat(4);

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  // TALLY_LLM_EGRESS=allowlist: whatever a connection in a test says, nothing beyond what the test allows is called
  const config = loadConfig({
    ...process.env,
    TALLY_LLM_EGRESS: 'allowlist',
    ...env,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    PORT: '0',
    TALLY_DATA_DIR: 'unused',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    TALLY_INIT_PUBLIC_KEY: '',
    TALLY_INIT_SECRET_KEY: '',
  });
  config.dataDir = 'memory://';
  const server = await startServer(config, createLogger(config.logLevel), { validateResponses: true, host: '127.0.0.1' });
  const em = server.db.em();
  const projectA = await addKeyPair(em, await createProject(em, 'test project A'));
  const projectB = await addKeyPair(em, await createProject(em, 'test project B'));
  return { server, projectA, projectB };
}

export const basic = (k: { publicKey: string; secretKey: string }) =>
  `Basic ${Buffer.from(`${k.publicKey}:${k.secretKey}`).toString('base64')}`;
