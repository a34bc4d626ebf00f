import type { TestProject } from 'vitest/node';
import { startTestServer } from '../support/start.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    projectA: { publicKey: string; secretKey: string; projectId: string };
    projectB: { publicKey: string; secretKey: string; projectId: string };
  }
}

/** the one loopback address the suite's server may call: fake providers listen there (127.0.0.1 stays refused) */
export const FAKE_PROVIDER_HOST = '127.0.0.2';
/** short, so a test of a provider that never answers takes seconds */
export const SUITE_LLM_TIMEOUT_MS = 2_000;

export default async function setup(project: TestProject) {
  // retries after 50 ms, not 15 s: the evaluation tests wait for a retried job
  const { server, projectA, projectB } = await startTestServer({
    TALLY_LLM_ALLOWED_HOSTS: FAKE_PROVIDER_HOST,
    TALLY_LLM_TIMEOUT_MS: String(SUITE_LLM_TIMEOUT_MS),
    TALLY_EVAL_RETRY_BASE_MS: '50',
  });
  project.provide('baseUrl', server.url);
  project.provide('projectA', projectA);
  project.provide('projectB', projectB);
  return () => server.close();
}
