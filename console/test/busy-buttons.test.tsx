// A button disabled while its call runs drops keyboard focus to the page in Chromium (found by
// pressing Sign in, Explain cost, Create model and Test with Enter): busy buttons are marked
// aria-disabled instead, keep focus, and ignore presses until the answer is in.
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { App } from '../src/App.tsx';
import { Connections } from '../src/pages/Connections.tsx';
import { Models } from '../src/pages/Models.tsx';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

/** answers `path` with `status` after `release()` is called, counting the calls */
function gate(method: 'get' | 'post', path: string, status: number, body: unknown) {
  let open: () => void = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  const state = { calls: 0, release: () => open() };
  mockServer.use(
    http[method](`${BASE_URL}${path}`, async () => {
      state.calls++;
      await opened;
      await delay(1);
      return HttpResponse.json(body as object, { status });
    }),
  );
  return state;
}

describe('busy buttons keep focus and ignore repeated presses', () => {
  it('Sign in', async () => {
    const g = gate('get', '/api/public/models', 401, { message: 'Invalid credentials.' });
    const user = userEvent.setup();
    render(<App baseUrl={BASE_URL} />);
    await user.type(screen.getByLabelText('Public key'), 'pk-lf-abc');
    await user.type(screen.getByLabelText('Secret key'), 'wrong');
    await user.tab();
    const button = screen.getByRole('button', { name: 'Sign in' });
    expect(button).toHaveFocus();
    await user.keyboard('{Enter}');
    const busy = await screen.findByRole('button', { name: 'Checking…' });
    expect(busy).not.toBeDisabled();
    expect(busy).toHaveAttribute('aria-disabled', 'true');
    expect(busy).toHaveFocus();
    await user.keyboard('{Enter}');
    g.release();
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid credentials.');
    expect(screen.getByRole('button', { name: 'Sign in' })).toHaveFocus();
    expect(g.calls).toBe(1);
  });

  it('Explain cost', async () => {
    const g = gate('post', '/api/public/models/explain', 400, { message: 'Invalid request data', error: [] });
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    await user.type(screen.getByLabelText('Generation model'), 'gpt-4o');
    await user.click(screen.getByRole('button', { name: 'Explain cost' }));
    const busy = await screen.findByRole('button', { name: 'Explaining…' });
    expect(busy).toHaveAttribute('aria-disabled', 'true');
    await user.click(busy);
    g.release();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Explain cost' })).toHaveFocus());
    expect(g.calls).toBe(1);
  });

  it("a connection's Test", async () => {
    const g = gate('post', '/api/public/llm-connections/cm3xa1f7d0003acme9k2m4p8q/test', 200, {
      ok: true,
      model: 'gpt-4o-mini',
      latencyMs: 9,
    });
    const user = userEvent.setup();
    renderSignedIn(<Connections />);
    await user.click(await screen.findByRole('button', { name: 'Test openai' }));
    const busy = screen.getByRole('button', { name: 'Test openai' });
    expect(busy).toHaveTextContent('Testing…');
    expect(busy).toHaveAttribute('aria-disabled', 'true');
    expect(busy).toHaveFocus();
    await user.click(busy);
    g.release();
    await waitFor(() => expect(screen.getByRole('status', { name: 'Test result of openai' })).toHaveTextContent('ok'));
    expect(busy).toHaveFocus();
    expect(g.calls).toBe(1);
  });
});
