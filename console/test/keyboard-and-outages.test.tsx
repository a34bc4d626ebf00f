// Found using the console in Chromium as a keyboard user and with the server stopped mid-session:
// focus that fell to the page, a stale probe result, and list failures with no way to retry.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Connections } from '../src/pages/Connections.tsx';
import { Evaluators } from '../src/pages/Evaluators.tsx';
import { Playground } from '../src/pages/Playground.tsx';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

const LIST = `${BASE_URL}/api/public/llm-connections`;
/** what a stopped server looks like to fetch */
const unreachable = () => HttpResponse.error();

async function exampleConnections(): Promise<{ data: Array<Record<string, unknown>>; meta: unknown }> {
  const auth = `Basic ${btoa('pk-lf-test:sk-lf-test')}`;
  return (await fetch(LIST, { headers: { authorization: auth } })).json();
}

describe('connections by keyboard', () => {
  it('Escape or "Keep it" on the delete confirmation gives focus back to Delete (it used to fall to the page)', async () => {
    const user = userEvent.setup();
    renderSignedIn(<Connections />);
    const del = await screen.findByRole('button', { name: 'Delete openai' });
    await user.click(del);
    expect(screen.getByRole('button', { name: 'Yes, delete' })).toHaveFocus();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(del).toHaveFocus());
    // so Enter opens it again, and "Keep it" returns focus as well
    await user.keyboard('{Enter}');
    expect(screen.getByRole('button', { name: 'Yes, delete' })).toHaveFocus();
    await user.click(screen.getByRole('button', { name: 'Keep it' }));
    await waitFor(() => expect(del).toHaveFocus());
  });

  it('after a delete, focus lands on the notice', async () => {
    const user = userEvent.setup();
    renderSignedIn(<Connections />);
    await user.click(await screen.findByRole('button', { name: 'Delete openai' }));
    await user.keyboard('{Enter}');
    const notice = await screen.findByText('Deleted connection openai.');
    await waitFor(() => expect(notice).toHaveFocus());
  });

  it('Edit takes focus into the edit form, not just the scroll position', async () => {
    const user = userEvent.setup();
    renderSignedIn(<Connections />);
    await user.click(await screen.findByRole('button', { name: 'Edit openai' }));
    const form = screen.getByRole('form', { name: 'Edit connection openai' });
    await waitFor(() => expect(within(form).getByLabelText('Adapter')).toHaveFocus());
  });

  it("Cancel on the edit form returns focus to the row's Edit button; a save puts it on the notice", async () => {
    const user = userEvent.setup();
    renderSignedIn(<Connections />);
    const edit = await screen.findByRole('button', { name: 'Edit openai' });
    await user.click(edit);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Edit openai' })).toHaveFocus());
    await user.keyboard('{Enter}');
    const form = screen.getByRole('form', { name: 'Edit connection openai' });
    await user.type(within(form).getByLabelText('API key'), 'sk-new-0003{Enter}');
    const notice = await screen.findByText('Saved connection openai.');
    await waitFor(() => expect(notice).toHaveFocus());
  });

  it('a refused save focuses the first field with a message', async () => {
    const user = userEvent.setup();
    renderSignedIn(<Connections />);
    await user.type(screen.getByLabelText('Provider name'), 'azure-one');
    await user.selectOptions(screen.getByLabelText('Adapter'), 'azure');
    await user.click(screen.getByRole('button', { name: 'Create connection' }));
    // the key is the first field refused (the name was given)
    await waitFor(() => expect(screen.getByLabelText('API key')).toHaveFocus());
    expect(screen.getByLabelText('Base URL')).toHaveAccessibleDescription(/Azure needs the resource URL/);
  });

  it("changing the adapter drops the other adapter's messages (Bedrock's region message appeared under the Responses API box)", async () => {
    const user = userEvent.setup();
    renderSignedIn(<Connections />);
    await user.type(screen.getByLabelText('Provider name'), 'b');
    await user.selectOptions(screen.getByLabelText('Adapter'), 'bedrock');
    await user.click(screen.getByRole('button', { name: 'Create connection' }));
    expect(screen.getByLabelText('AWS region')).toHaveAccessibleDescription(/Enter the AWS region/);
    await user.selectOptions(screen.getByLabelText('Adapter'), 'openai');
    expect(screen.queryByText(/Enter the AWS region/)).not.toBeInTheDocument();
  });

  it('a probe result of the connection before a save is cleared once it is saved', async () => {
    const example = await exampleConnections();
    let saved = false;
    mockServer.use(
      http.get(LIST, () =>
        HttpResponse.json(
          saved ? { ...example, data: example.data.map((c) => ({ ...c, updatedAt: '2030-01-01T00:00:00.000Z' })) } : example,
        ),
      ),
    );
    mockServer.events.on('request:start', ({ request }) => {
      if (request.method === 'PUT') saved = true;
    });
    const user = userEvent.setup();
    renderSignedIn(<Connections />);
    await user.click(await screen.findByRole('button', { name: 'Test openai' }));
    await waitFor(() => expect(screen.getByRole('status', { name: 'Test result of openai' })).toHaveTextContent('ok'));
    await user.click(screen.getByRole('button', { name: 'Edit openai' }));
    const form = screen.getByRole('form', { name: 'Edit connection openai' });
    await user.type(within(form).getByLabelText('API key'), 'sk-new-0002{Enter}');
    expect(await screen.findByText(/Saved connection openai\./)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('status', { name: 'Test result of openai' })).toBeEmptyDOMElement());
    mockServer.events.removeAllListeners();
  });
});

describe('a server that stops answering', () => {
  it("connections: says the server can't be reached, and Reload connections recovers once it is back", async () => {
    mockServer.use(http.get(LIST, unreachable, { once: true }));
    const user = userEvent.setup();
    renderSignedIn(<Connections />);
    expect(await screen.findByRole('alert')).toHaveTextContent(/Could not list the connections: Can't reach the Tally server/);
    await user.click(screen.getByRole('button', { name: 'Reload connections' }));
    expect(await screen.findByRole('table', { name: 'LLM connections' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it("playground: no misleading 'offers no model' hint, and a way to retry", async () => {
    mockServer.use(http.get(LIST, unreachable, { once: true }));
    const user = userEvent.setup();
    renderSignedIn(<Playground />);
    expect(await screen.findByRole('alert')).toHaveTextContent(/Can't reach the Tally server/);
    expect(screen.queryByText(/offers no model/)).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Reload connections' }));
    await waitFor(() => expect(screen.getByLabelText('Connection')).toHaveValue('openai'));
  });

  it('evaluators: each failed list has its own retry', async () => {
    mockServer.use(
      http.get(`${BASE_URL}/api/public/unstable/evaluators`, unreachable, { once: true }),
      http.get(`${BASE_URL}/api/public/unstable/evaluation-rules`, unreachable, { once: true }),
    );
    const user = userEvent.setup();
    renderSignedIn(<Evaluators />);
    await waitFor(() => expect(screen.getAllByRole('alert')).toHaveLength(2));
    for (const a of screen.getAllByRole('alert')) expect(a).toHaveTextContent(/Can't reach the Tally server/);
    await user.click(screen.getByRole('button', { name: 'Reload evaluators' }));
    await user.click(screen.getByRole('button', { name: 'Reload rules' }));
    await waitFor(() => expect(screen.queryAllByRole('alert')).toHaveLength(0));
    expect(screen.getByRole('table', { name: 'Evaluators' })).toBeInTheDocument();
  });
});
