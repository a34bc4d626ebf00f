import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { mockOperation } from '../../sdk/mocks/index.ts';
import { Connections } from '../src/pages/Connections.tsx';
import { buildBody, emptyForm } from '../src/pages/connections/form-state.ts';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

/** the JSON bodies of the requests to `path` (method, body) */
function record(path: string) {
  const seen: { method: string; body: unknown }[] = [];
  mockServer.events.on('request:start', async ({ request }) => {
    if (new URL(request.url).pathname !== path) return;
    const text = await request.clone().text();
    seen.push({ method: request.method, body: text ? JSON.parse(text) : undefined });
  });
  return seen;
}

describe('LLM connections page', () => {
  it('lists connections with the masked key only', async () => {
    renderSignedIn(<Connections />);
    const table = await screen.findByRole('table', { name: 'LLM connections' });
    expect(within(table).getByRole('rowheader', { name: 'openai' })).toBeInTheDocument();
    expect(within(table).getByLabelText('Masked key of openai')).toHaveTextContent('...p4Hc');
    expect(within(table).getByRole('rowheader', { name: 'anthropic' })).toBeInTheDocument();
    expect(within(table).getByLabelText('Masked key of anthropic')).toHaveTextContent('...d8Rz');
  });

  it('says what to do when there are no connections', async () => {
    mockServer.use(
      http.get(`${BASE_URL}/api/public/llm-connections`, () =>
        HttpResponse.json({ data: [], meta: { page: 1, limit: 100, totalItems: 0, totalPages: 0 } }),
      ),
    );
    renderSignedIn(<Connections />);
    expect(await screen.findByText('No LLM connections yet')).toBeInTheDocument();
  });

  it("shows only the chosen adapter's fields", async () => {
    renderSignedIn(<Connections />);
    const adapter = screen.getByLabelText('Adapter');
    expect(screen.getByLabelText('Use the Responses API')).toBeInTheDocument();
    expect(screen.queryByLabelText('AWS region')).not.toBeInTheDocument();
    expect(screen.getByLabelText('API key')).toBeInTheDocument();

    await userEvent.selectOptions(adapter, 'bedrock');
    expect(screen.getByLabelText('AWS region')).toBeInTheDocument();
    expect(screen.getByLabelText('Access key id')).toBeInTheDocument();
    expect(screen.getByLabelText('Secret access key')).toBeInTheDocument();
    expect(screen.queryByLabelText('Use the Responses API')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('API key')).not.toBeInTheDocument();
    await userEvent.click(screen.getByLabelText('Bedrock API key', { selector: 'input[type=radio]' }));
    expect(screen.getByLabelText('Bedrock API key', { selector: 'input[type=password]' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Access key id')).not.toBeInTheDocument();

    await userEvent.selectOptions(adapter, 'google-vertex-ai');
    expect(screen.getByLabelText('Vertex location')).toBeInTheDocument();
    expect(screen.getByLabelText('Service account key (JSON)')).toBeInTheDocument();
    expect(screen.queryByLabelText('AWS region')).not.toBeInTheDocument();

    await userEvent.selectOptions(adapter, 'anthropic');
    expect(screen.queryByLabelText('Use the Responses API')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Vertex location')).not.toBeInTheDocument();
    expect(screen.getByLabelText('API key')).toBeInTheDocument();
  });

  it('creates an openai connection with models and headers', async () => {
    const seen = record('/api/public/llm-connections');
    renderSignedIn(<Connections />);
    await userEvent.type(screen.getByLabelText('Provider name'), 'fake-openai');
    await userEvent.type(screen.getByLabelText('API key'), 'sk-abc-123456');
    await userEvent.type(screen.getByLabelText('Base URL'), 'http://127.0.0.2:9999/v1');
    await userEvent.type(screen.getByLabelText('Custom model'), 'fake-model{Enter}');
    await userEvent.type(screen.getByLabelText('Custom model'), 'other');
    await userEvent.click(screen.getByRole('button', { name: 'Add model' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove model other' }));
    await userEvent.click(screen.getByRole('button', { name: 'Add header' }));
    await userEvent.type(screen.getByLabelText('Header name 1'), 'X-Team');
    await userEvent.type(screen.getByLabelText('Header value 1'), 'llm');
    await userEvent.click(screen.getByLabelText('Use the Responses API'));
    await userEvent.click(screen.getByRole('button', { name: 'Create connection' }));
    await waitFor(() => expect(seen.some((r) => r.method === 'PUT')).toBe(true));
    expect(seen.find((r) => r.method === 'PUT')!.body).toEqual({
      provider: 'fake-openai',
      adapter: 'openai',
      secretKey: 'sk-abc-123456',
      baseURL: 'http://127.0.0.2:9999/v1',
      customModels: ['fake-model'],
      withDefaultModels: true,
      extraHeaders: { 'X-Team': 'llm' },
      config: { useResponsesApi: true },
    });
    expect(await screen.findByText(/connection openai\./)).toBeInTheDocument();
    mockServer.events.removeAllListeners();
  });

  it('encodes Bedrock credentials as the spec says and shows 400 issues next to their fields', async () => {
    const seen = record('/api/public/llm-connections');
    mockServer.use(mockOperation('llmConnections_upsert', 'bedrockBadCredentials', { baseUrl: BASE_URL }));
    renderSignedIn(<Connections />);
    await userEvent.type(screen.getByLabelText('Provider name'), 'my-bedrock');
    await userEvent.selectOptions(screen.getByLabelText('Adapter'), 'bedrock');
    await userEvent.type(screen.getByLabelText('Access key id'), 'AKIA1');
    await userEvent.type(screen.getByLabelText('Secret access key'), 'secret1');
    await userEvent.type(screen.getByLabelText('AWS region'), 'us-east-1');
    await userEvent.click(screen.getByRole('button', { name: 'Create connection' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid request data');
    expect(screen.getByLabelText('Access key id')).toHaveAccessibleDescription(/Invalid Bedrock credentials/);
    const body = seen.find((r) => r.method === 'PUT')!.body as Record<string, unknown>;
    expect(JSON.parse(body.secretKey as string)).toEqual({ accessKeyId: 'AKIA1', secretAccessKey: 'secret1' });
    expect(body.config).toEqual({ region: 'us-east-1' });
    mockServer.events.removeAllListeners();
  });

  it('builds the default-credentials and API-key Bedrock secrets', () => {
    const base = { ...emptyForm(), provider: 'b', adapter: 'bedrock' as const, region: 'eu-west-1' };
    expect(buildBody({ ...base, bedrockAuth: 'default' }, null)).toMatchObject({
      body: { secretKey: '__BEDROCK_DEFAULT_CREDENTIALS__', config: { region: 'eu-west-1' } },
    });
    expect(buildBody({ ...base, bedrockAuth: 'apiKey', bedrockApiKey: 'k1' }, null)).toMatchObject({
      body: { secretKey: '{"apiKey":"k1"}' },
    });
    expect(buildBody({ ...base, region: '' }, null)).toMatchObject({
      errors: { config: expect.any(String), secretKey: expect.any(String) },
    });
    expect(buildBody({ ...emptyForm(), provider: 'a', adapter: 'anthropic', secretKey: 'k' }, null)).not.toHaveProperty('body.config');
  });

  it('on update a blank key is left out (the server keeps the stored one); a typed key replaces it', async () => {
    const seen = record('/api/public/llm-connections');
    renderSignedIn(<Connections />);
    await userEvent.click(await screen.findByRole('button', { name: 'Edit openai' }));
    const form = screen.getByRole('form', { name: 'Edit connection openai' });
    const key = within(form).getByLabelText('API key');
    expect(key).toHaveValue('');
    expect(key).toHaveAccessibleDescription(/Leave blank to keep the stored key \(\.\.\.p4Hc\)/);
    await userEvent.click(within(form).getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(seen.filter((r) => r.method === 'PUT')).toHaveLength(1));
    const kept = seen.find((r) => r.method === 'PUT')!.body as Record<string, unknown>;
    expect(kept).toMatchObject({ provider: 'openai', adapter: 'openai' });
    expect(kept).not.toHaveProperty('secretKey');

    await userEvent.click(await screen.findByRole('button', { name: 'Edit openai' }));
    const again = screen.getByRole('form', { name: 'Edit connection openai' });
    await userEvent.type(within(again).getByLabelText('API key'), 'sk-new-key-0001');
    await userEvent.click(within(again).getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(seen.filter((r) => r.method === 'PUT')).toHaveLength(2));
    expect(seen.filter((r) => r.method === 'PUT')[1]!.body).toMatchObject({ secretKey: 'sk-new-key-0001' });
    mockServer.events.removeAllListeners();
  });

  it('rotates a key without typing the stored header values: a blank stored header is sent as null (kept)', () => {
    const editing = {
      ...emptyForm(),
      provider: 'p',
      adapter: 'openai' as const,
      secretKey: 'sk-rotated',
      headers: [
        { name: 'X-Team', value: '', storedName: 'X-Team' },
        { name: 'X-Api-Version', value: '3', storedName: 'X-Api-Version' },
        { name: 'X-New', value: 'v' },
      ],
    };
    expect(buildBody(editing, 'openai')).toMatchObject({
      body: { secretKey: 'sk-rotated', extraHeaders: { 'X-Team': null, 'X-Api-Version': '3', 'X-New': 'v' } },
    });
    // a renamed stored header has no stored value under its new name; a new row needs its value
    const renamed = {
      ...editing,
      headers: [
        { name: 'X-Squad', value: '', storedName: 'X-Team' },
        { name: 'X-Other', value: '' },
      ],
    };
    expect(buildBody(renamed, 'openai')).toEqual({
      errors: { 'headers.0': 'Enter a value: the stored one belongs to "X-Team", not "X-Squad".', 'headers.1': 'Enter the header value.' },
    });
  });

  it('a blank key is kept only while the adapter stays: a new adapter needs its own key', () => {
    const form = { ...emptyForm(), provider: 'p', adapter: 'anthropic' as const };
    expect(buildBody(form, 'anthropic')).toEqual({ body: expect.not.objectContaining({ secretKey: expect.anything() }) });
    expect(buildBody(form, 'openai')).toEqual({ errors: { secretKey: 'Enter the key. The stored key belongs to the openai adapter.' } });
    expect(buildBody(form, null)).toEqual({ errors: { secretKey: 'Enter the key.' } });
    const bedrock = { ...emptyForm(), provider: 'b', adapter: 'bedrock' as const, region: 'us-east-1' };
    expect(buildBody(bedrock, 'bedrock')).toMatchObject({ body: { config: { region: 'us-east-1' } } });
    expect(buildBody(bedrock, 'bedrock')).not.toHaveProperty('body.secretKey');
    // half a key pair is not a key to keep
    expect(buildBody({ ...bedrock, accessKeyId: 'AKIA1' }, 'bedrock')).toMatchObject({
      errors: { secretKey: expect.stringContaining('Enter both') },
    });
  });

  it('tests a connection: ok with latency and response model', async () => {
    renderSignedIn(<Connections />);
    await userEvent.click(await screen.findByRole('button', { name: 'Test openai' }));
    const status = screen.getByRole('status', { name: 'Test result of openai' });
    await waitFor(() => expect(status).toHaveTextContent('ok'));
    expect(status).toHaveTextContent('9 ms');
    expect(status).toHaveTextContent('gpt-4o-mini-2024-07-18');
  });

  it('tests a connection with the model picked: a custom model first, any other typed or chosen', async () => {
    const bodies: unknown[] = [];
    mockServer.events.on('request:start', async ({ request }) => {
      if (new URL(request.url).pathname.endsWith('/test')) bodies.push(JSON.parse(await request.clone().text()));
    });
    renderSignedIn(<Connections />);
    const picker = await screen.findByRole('combobox', { name: 'Model to test openai with' });
    await userEvent.clear(picker);
    await userEvent.type(picker, 'gpt-4.1-nano');
    await userEvent.click(screen.getByRole('button', { name: 'Test openai' }));
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0]).toEqual({ model: 'gpt-4.1-nano' });
    mockServer.events.removeAllListeners();
  });

  it('tests a connection: the classified failure', async () => {
    mockServer.use(mockOperation('llmConnections_test', 'probeAuthFailed', { baseUrl: BASE_URL }));
    renderSignedIn(<Connections />);
    await userEvent.click(await screen.findByRole('button', { name: 'Test openai' }));
    const status = screen.getByRole('status', { name: 'Test result of openai' });
    await waitFor(() => expect(status).toHaveTextContent('auth_invalid'));
    expect(status).toHaveTextContent('provider status 401');
    expect(status).toHaveTextContent('Incorrect API key provided');
  });

  it('deletes after a keyboard-usable confirmation', async () => {
    const seen = record('/api/public/llm-connections/cm3xa1f7d0003acme9k2m4p8q');
    renderSignedIn(<Connections />);
    await userEvent.click(await screen.findByRole('button', { name: 'Delete openai' }));
    const yes = screen.getByRole('button', { name: 'Yes, delete' });
    expect(yes).toHaveFocus();
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('button', { name: 'Yes, delete' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Delete openai' }));
    await userEvent.keyboard('{Enter}');
    expect(await screen.findByText('Deleted connection openai.')).toBeInTheDocument();
    expect(seen.map((r) => r.method)).toEqual(['DELETE']);
    mockServer.events.removeAllListeners();
  });
});

describe('LLM connections page: refusals without an issue list', () => {
  it('puts an egress refusal of the base URL next to the Base URL field', async () => {
    mockServer.use(mockOperation('llmConnections_upsert', 'baseURLLoopback', { baseUrl: BASE_URL }));
    renderSignedIn(<Connections />);
    await userEvent.type(screen.getByLabelText('Provider name'), 'local');
    await userEvent.type(screen.getByLabelText('API key'), 'sk-local-0001');
    await userEvent.type(screen.getByLabelText('Base URL'), 'http://2130706433:8080/v1');
    await userEvent.click(screen.getByRole('button', { name: 'Create connection' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid baseURL: 127.0.0.1 is a loopback address');
    expect(screen.getByLabelText('Base URL')).toHaveAccessibleDescription(/loopback address/);
  });
});
