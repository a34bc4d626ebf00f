import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['server/test/unit/**/*.test.ts', 'conformance/test/**/*.test.ts'], environment: 'node' } },
      {
        test: {
          name: 'integration',
          include: ['server/test/integration/**/*.test.ts'],
          environment: 'node',
          // one in-process server (PGlite or the PostgreSQL of DATABASE_URL) for all files
          globalSetup: ['server/test/integration/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
