// Component tests: every API call the console makes is answered by the msw handlers generated
// from the spec's examples (@tally/sdk/mocks), exactly what a frontend team builds against.
import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { mockServer } from './render.tsx';

beforeAll(() => mockServer.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  cleanup();
  mockServer.resetHandlers();
  sessionStorage.clear();
  window.location.hash = '';
});
afterAll(() => mockServer.close());
