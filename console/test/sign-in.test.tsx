import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { App } from '../src/App.tsx';
import { BASE_URL, mockServer } from './render.tsx';

describe('sign in', () => {
  it('checks the key pair against the server, keeps it for the tab only and shows the console', async () => {
    const seen: string[] = [];
    mockServer.events.on('request:start', ({ request }) => {
      seen.push(request.headers.get('authorization') ?? '');
    });
    render(<App baseUrl={BASE_URL} />);
    // the first field has focus: type, Tab, type, Enter
    expect(screen.getByLabelText('Public key')).toHaveFocus();
    await userEvent.keyboard('pk-lf-abc');
    await userEvent.tab();
    await userEvent.keyboard('sk-lf-xyz{Enter}');
    expect(await screen.findByRole('navigation', { name: 'Console' })).toBeInTheDocument();
    expect(seen[0]).toBe(`Basic ${btoa('pk-lf-abc:sk-lf-xyz')}`);
    expect(JSON.parse(sessionStorage.getItem('tally-console-session')!)).toEqual({ publicKey: 'pk-lf-abc', secretKey: 'sk-lf-xyz' });
    expect(document.cookie).toBe('');
    mockServer.events.removeAllListeners();
  });

  it("shows the server's message when the keys are refused", async () => {
    mockServer.use(
      http.get(`${BASE_URL}/api/public/models`, () =>
        HttpResponse.json(
          {
            message:
              'Invalid credentials: no project has this secret key. Check that both keys are copied whole and that they were created on this Tally server.',
          },
          { status: 401 },
        ),
      ),
    );
    render(<App baseUrl={BASE_URL} />);
    await userEvent.type(screen.getByLabelText('Public key'), 'pk-lf-abc');
    await userEvent.type(screen.getByLabelText('Secret key'), 'wrong');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Invalid credentials');
    expect(alert).toHaveTextContent('401');
    expect(sessionStorage.getItem('tally-console-session')).toBeNull();
  });

  it('signing out forgets the keys', async () => {
    sessionStorage.setItem('tally-console-session', JSON.stringify({ publicKey: 'pk-lf-a', secretKey: 'sk-lf-b' }));
    render(<App baseUrl={BASE_URL} />);
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(screen.getByRole('form', { name: 'Sign in' })).toBeInTheDocument());
    expect(sessionStorage.getItem('tally-console-session')).toBeNull();
  });
});
