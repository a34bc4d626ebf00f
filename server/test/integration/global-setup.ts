import type { TestProject } from 'vitest/node';
import { startTestServer } from '../support/start.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    projectA: { publicKey: string; secretKey: string; projectId: string };
    projectB: { publicKey: string; secretKey: string; projectId: string };
  }
}

export default async function setup(project: TestProject) {
  const { server, projectA, projectB } = await startTestServer();
  project.provide('baseUrl', server.url);
  project.provide('projectA', projectA);
  project.provide('projectB', projectB);
  return () => server.close();
}
