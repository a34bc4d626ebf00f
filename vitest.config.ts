import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['server/test/unit/**/*.test.ts', 'conformance/test/**/*.test.ts', 'sdk/test/**/*.test.ts'],
          environment: 'node',
        },
      },
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
      // the ClickHouse path on the embedded engine (engines/chdb, make analytics-test): one file at
      // a time, since the engine allows one data directory per process
      {
        test: {
          name: 'analytics',
          include: ['server/test/analytics/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      // the web console's components, against the msw handlers generated from the spec's examples
      {
        plugins: [react()],
        test: {
          name: 'console',
          include: ['console/test/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['console/test/setup.ts'],
          testTimeout: 15_000,
        },
      },
      // /docs and the console in headless Chromium (make browser-test installs it)
      {
        test: {
          name: 'browser',
          include: ['server/test/browser/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'fuzz',
          include: ['server/test/fuzz/**/*.test.ts'],
          environment: 'node',
          // its own in-process server (the integration suite's setup), so fuzzed models and
          // traces never meet the integration tests' data
          globalSetup: ['server/test/integration/global-setup.ts'],
          // each property bounds itself (FUZZ_TIME_LIMIT_MS, 60 s by default)
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
      // real LLM instrumentation packages (instrumentations/node_modules, make instrumentation-test)
      // sending calls to a fake provider on loopback and one in-process server (the integration
      // suite's setup); one file at a time, since each registers global OpenTelemetry state
      {
        test: {
          name: 'instrumentations',
          include: ['instrumentations/test/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['server/test/integration/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
