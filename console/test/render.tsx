import { render } from '@testing-library/react';
import { setupServer } from 'msw/node';
import type { ReactElement } from 'react';
import { createHandlers } from '../../sdk/mocks/index.ts';
import { createTally, TallyContext } from '../src/api.ts';

/** The origin the tests' client calls; msw answers it from the spec's examples. */
export const BASE_URL = 'http://tally.test';
export const mockServer = setupServer(...createHandlers({ baseUrl: BASE_URL, requireAuth: true }));

/** Renders a page as the signed-in console does: inside the SDK client's context. */
export function renderSignedIn(ui: ReactElement) {
  const tally = createTally({ publicKey: 'pk-lf-test', secretKey: 'sk-lf-test' }, BASE_URL);
  return render(<TallyContext.Provider value={tally}>{ui}</TallyContext.Provider>);
}
