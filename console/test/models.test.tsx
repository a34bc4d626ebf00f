// The Models page against the msw handlers built from the spec's examples; states the examples
// lack (several models, a 400 with nested issue paths) come from plain msw handlers.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { mockOperation } from '../../sdk/mocks/index.ts';
import { Models } from '../src/pages/Models.tsx';
import type { ExplainCostResponse, Model } from '../../sdk/index.ts';
import { model, serveModels } from './models-fixture.ts';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

const SEVERAL: Model[] = [
  model({
    id: 'managed_gpt-4o',
    modelName: 'gpt-4o',
    matchPattern: '(?i)^(openai/)?(gpt-4o)$',
    isLangfuseManaged: true,
    tokenizerId: 'openai',
    tokenizerConfig: { tokenizerModel: 'gpt-4o' },
  }),
  model({ id: 'cm-mine', modelName: 'my-llama', matchPattern: '(?i)^(my-llama)$', startDate: '2026-01-01T00:00:00.000Z' }),
  model({
    id: 'cm-tiered',
    modelName: 'tiered-one',
    matchPattern: '(?i)^(tiered-one)$',
    pricingTiers: [
      { id: 't0', name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: { input: 0.000001 } },
      {
        id: 't1',
        name: 'Large',
        isDefault: false,
        priority: 1,
        conditions: [{ usageDetailPattern: 'input', operator: 'gt', value: 1000 }],
        prices: { input: 0.00001 },
      },
    ],
  }),
];

/** Requests the page sends, with their JSON bodies. */
function recordRequests() {
  const seen: Array<{ method: string; path: string; body: unknown }> = [];
  mockServer.events.on('request:start', async ({ request }) => {
    const text = request.method === 'GET' || request.method === 'DELETE' ? '' : await request.clone().text();
    seen.push({ method: request.method, path: new URL(request.url).pathname, body: text ? JSON.parse(text) : undefined });
  });
  return seen;
}

describe('Models page', () => {
  it('lists the example models with their managed flag, tiers and a count', async () => {
    renderSignedIn(<Models />);
    const table = await screen.findByRole('table', { name: 'Models' });
    // the example's meta claims 80 pages and the mock answers each with the same two models: each is shown once
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('acme-ft-gpt-4o-mini');
    expect(rows[0]).toHaveTextContent('Project');
    expect(within(rows[0]!).getByRole('button', { name: 'Delete acme-ft-gpt-4o-mini' })).toBeInTheDocument();
    expect(rows[1]).toHaveTextContent('ada');
    expect(rows[1]).toHaveTextContent('Managed');
    expect(rows[1]).toHaveTextContent('input: 0.0000004');
    expect(rows[1]).toHaveTextContent('Standard (priority 0, default)');
    expect(within(rows[1]!).queryByRole('button', { name: /^Delete/ })).toBeNull();
    expect(screen.getByText(/2 models \(1 managed, 1 project\)/)).toBeInTheDocument();
  });

  it('filters by model name or pattern', async () => {
    serveModels(SEVERAL);
    renderSignedIn(<Models />);
    const table = await screen.findByRole('table', { name: 'Models' });
    expect(within(table).getAllByRole('row')).toHaveLength(4);
    expect(within(table).getByText('when sum of /input/i > 1000')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Search models'), 'llama');
    expect(within(table).getAllByRole('row')).toHaveLength(2);
    expect(within(table).getByRole('rowheader', { name: 'my-llama' })).toBeInTheDocument();
    expect(screen.getByText(/1 of 3 models/)).toBeInTheDocument();
    await userEvent.clear(screen.getByLabelText('Search models'));
    await userEvent.type(screen.getByLabelText('Search models'), 'openai/');
    expect(within(table).getAllByRole('row')).toHaveLength(2);
    expect(within(table).getByRole('rowheader', { name: 'gpt-4o' })).toBeInTheDocument();
    await userEvent.clear(screen.getByLabelText('Search models'));
    await userEvent.type(screen.getByLabelText('Search models'), 'nothing-like-this');
    expect(await screen.findByText('No model matches “nothing-like-this”')).toBeInTheDocument();
  });

  it('finds the definitions whose pattern matches a model name as one sends it, marked, before text matches', async () => {
    serveModels([
      ...SEVERAL,
      model({
        id: 'managed_claude',
        modelName: 'claude-3.5-sonnet',
        matchPattern: '(?i)^(anthropic/)?(claude-3-5-sonnet-20241022|claude-3\\.5-sonnet)$',
        isLangfuseManaged: true,
      }),
    ]);
    renderSignedIn(<Models />);
    await screen.findByRole('table', { name: 'Models' });
    // neither the definition's name nor its pattern contains the sent name as text
    await userEvent.type(screen.getByLabelText('Search models'), 'anthropic/claude-3-5-sonnet-20241022');
    // (a prefix typed on the way matched nothing: the table was replaced by the empty state, then drawn again)
    const found = screen.getByRole('table', { name: 'Models' });
    expect(within(found).getByRole('rowheader', { name: /claude-3\.5-sonnet/ })).toHaveTextContent('matches');
    expect(within(found).getAllByRole('row')).toHaveLength(2);
    // case-insensitive, as (?i) says
    await userEvent.clear(screen.getByLabelText('Search models'));
    await userEvent.type(screen.getByLabelText('Search models'), 'GPT-4O');
    const again = screen.getByRole('table', { name: 'Models' });
    expect(
      within(again)
        .getAllByRole('rowheader')
        .map((r) => r.textContent),
    ).toEqual(['gpt-4o matches']);
  });

  it('shows 25 models a page, a search going back to its first page', async () => {
    serveModels(
      Array.from({ length: 60 }, (_, i) =>
        model({ id: `cm-${i}`, modelName: `model-${String(i).padStart(2, '0')}`, matchPattern: `(?i)^(model-${i})$` }),
      ),
    );
    renderSignedIn(<Models />);
    const table = await screen.findByRole('table', { name: 'Models' });
    expect(within(table).getAllByRole('rowheader')).toHaveLength(25);
    const pager = screen.getAllByRole('navigation', { name: 'Model pages' })[0]!;
    expect(pager).toHaveTextContent('Page 1 of 3');
    expect(within(pager).getByRole('button', { name: 'Previous' })).toBeDisabled();
    await userEvent.click(within(pager).getByRole('button', { name: 'Next' }));
    await userEvent.click(within(pager).getByRole('button', { name: 'Next' }));
    expect(pager).toHaveTextContent('Page 3 of 3');
    expect(
      within(table)
        .getAllByRole('rowheader')
        .map((r) => r.textContent),
    ).toEqual(Array.from({ length: 10 }, (_, i) => `model-${50 + i}`));
    await userEvent.type(screen.getByLabelText('Search models'), 'model-0');
    expect(within(table).getAllByRole('rowheader')).toHaveLength(10);
    expect(screen.queryByRole('navigation', { name: 'Model pages' })).toBeNull();
  });

  it('keeps flat prices when switching to tiers (the default tier gets them) and back', async () => {
    renderSignedIn(<Models />);
    await userEvent.type(screen.getByLabelText('Input price'), '0.0000025');
    await userEvent.type(screen.getByLabelText('Output price'), '0.00001');
    await userEvent.click(screen.getByRole('radio', { name: 'Pricing tiers' }));
    expect(screen.getByLabelText('Tier 1 input price')).toHaveValue('0.0000025');
    expect(screen.getByLabelText('Tier 1 output price')).toHaveValue('0.00001');
    await userEvent.clear(screen.getByLabelText('Tier 1 input price'));
    await userEvent.type(screen.getByLabelText('Tier 1 input price'), '0.000003');
    await userEvent.click(screen.getByRole('radio', { name: 'Flat prices' }));
    // a price typed on the flat side is not overwritten by the tier's
    expect(screen.getByLabelText('Input price')).toHaveValue('0.0000025');
    expect(screen.getByLabelText('Output price')).toHaveValue('0.00001');
  });

  it('creates a model with two pricing tiers and sends the spec body', async () => {
    const seen = recordRequests();
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    await screen.findByRole('table', { name: 'Models' });
    await user.type(screen.getByLabelText('Model name'), 'e2e-tiered');
    await user.type(screen.getByLabelText('Match pattern'), '(?i)^e2e-tiered$');
    await user.click(screen.getByRole('radio', { name: 'Pricing tiers' }));
    await user.type(screen.getByLabelText('Tier 1 input price'), '0.000001');
    await user.type(screen.getByLabelText('Tier 1 output price'), '0.000002');
    await user.click(screen.getByRole('button', { name: 'Add tier' }));
    await user.type(screen.getByLabelText('Tier 2 name'), 'Large');
    expect(screen.getByLabelText('Tier 2 priority')).toHaveValue('1');
    await user.type(screen.getByLabelText('Tier 2 condition 1 usage pattern'), 'input');
    await user.selectOptions(screen.getByLabelText('Tier 2 condition 1 operator'), 'gt');
    await user.type(screen.getByLabelText('Tier 2 condition 1 threshold'), '1000');
    await user.type(screen.getByLabelText('Tier 2 input price'), '0.00001');
    await user.type(screen.getByLabelText('Tier 2 output price'), '0.00002');
    await user.click(screen.getByRole('button', { name: 'Create model' }));

    // the mock answers the spec's first 200 example (the acme-ft-gpt-4o-mini fine-tune), whatever was sent
    expect(await screen.findByText('Created model acme-ft-gpt-4o-mini.')).toBeInTheDocument();
    const post = seen.find((r) => r.method === 'POST');
    expect(post?.path).toBe('/api/public/models');
    expect(post?.body).toEqual({
      modelName: 'e2e-tiered',
      matchPattern: '(?i)^e2e-tiered$',
      unit: 'TOKENS',
      pricingTiers: [
        { name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: { input: 0.000001, output: 0.000002 } },
        {
          name: 'Large',
          isDefault: false,
          priority: 1,
          conditions: [{ usageDetailPattern: 'input', operator: 'gt', value: 1000, caseSensitive: false }],
          prices: { input: 0.00001, output: 0.00002 },
        },
      ],
    });
    // the table is read again after the create
    await waitFor(() => expect(seen.filter((r) => r.method === 'GET' && r.path === '/api/public/models').length).toBeGreaterThanOrEqual(4));
    expect(screen.getByLabelText('Model name')).toHaveValue('');
    mockServer.events.removeAllListeners();
  });

  it('creates a model with flat prices and shows it in the reloaded table', async () => {
    const stored: Model[] = [...SEVERAL];
    let posted: unknown;
    mockServer.use(
      http.get(`${BASE_URL}/api/public/models`, () =>
        HttpResponse.json({ data: stored, meta: { page: 1, limit: 100, totalItems: stored.length, totalPages: 1 } }),
      ),
      http.post(`${BASE_URL}/api/public/models`, async ({ request }) => {
        posted = await request.json();
        const created = model({
          id: 'cm-new',
          modelName: 'flat-one',
          matchPattern: '(?i)^(flat-one)$',
          tokenizerId: 'openai',
          tokenizerConfig: { tokensPerMessage: 3 },
        });
        stored.push(created);
        return HttpResponse.json(created);
      }),
    );
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const table = await screen.findByRole('table', { name: 'Models' });
    await user.type(screen.getByLabelText('Model name'), 'flat-one');
    await user.type(screen.getByLabelText('Match pattern'), '(?i)^(flat-one)$');
    await user.selectOptions(screen.getByLabelText('Unit'), 'CHARACTERS');
    await user.type(screen.getByLabelText('Start date (optional)'), '2026-02-01');
    await user.selectOptions(screen.getByLabelText('Tokenizer (optional)'), 'openai');
    await user.click(screen.getByLabelText('Tokenizer config (JSON, optional)'));
    await user.paste('{"tokensPerMessage": 3}');
    await user.type(screen.getByLabelText('Input price'), '0.000001');
    await user.type(screen.getByLabelText('Output price'), '0.000002');
    await user.click(screen.getByRole('button', { name: 'Create model' }));
    expect(await within(table).findByRole('rowheader', { name: 'flat-one' })).toBeInTheDocument();
    expect(screen.getByText(/4 models/)).toBeInTheDocument();
    expect(posted).toEqual({
      modelName: 'flat-one',
      matchPattern: '(?i)^(flat-one)$',
      unit: 'CHARACTERS',
      startDate: '2026-02-01',
      tokenizerId: 'openai',
      tokenizerConfig: { tokensPerMessage: 3 },
      inputPrice: 0.000001,
      outputPrice: 0.000002,
    });
  });

  it("shows a 400's issues next to the matching controls and its message in the banner", async () => {
    mockServer.use(
      http.post(`${BASE_URL}/api/public/models`, () =>
        HttpResponse.json(
          {
            message: 'Invalid request data',
            error: [
              {
                code: 'invalid_value',
                path: ['pricingTiers', 1, 'conditions', 0, 'operator'],
                message: 'Invalid option: expected one of "gt"|"gte"',
              },
              { code: 'too_big', path: ['pricingTiers', 1, 'prices', 'input'], message: 'Too big: expected number to be <=1000000' },
              { code: 'custom', path: ['matchPattern'], message: 'matchPattern is not a valid regex pattern: missing ): (?i)^(x' },
              // what the real server says for a condition matching neither condition shape
              {
                code: 'invalid_union',
                path: ['pricingTiers', 1, 'conditions', 0],
                message: 'Invalid input: matches none of the allowed shapes',
              },
              { code: 'unrecognized_keys', path: ['somethingElse'], message: 'Unrecognized key: "somethingElse"' },
            ],
          },
          { status: 400 },
        ),
      ),
    );
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    await user.type(screen.getByLabelText('Model name'), 'x');
    await user.type(screen.getByLabelText('Match pattern'), '(?i)^(x');
    await user.click(screen.getByRole('radio', { name: 'Pricing tiers' }));
    await user.type(screen.getByLabelText('Tier 1 input price'), '1');
    await user.click(screen.getByRole('button', { name: 'Add tier' }));
    await user.type(screen.getByLabelText('Tier 2 condition 1 threshold'), '5');
    await user.type(screen.getByLabelText('Tier 2 input price'), '2000000');
    await user.click(screen.getByRole('button', { name: 'Create model' }));

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Invalid request data');
    expect(alert).toHaveTextContent('400');
    expect(screen.getByLabelText('Tier 2 condition 1 operator')).toHaveAccessibleDescription('Must be one of gt, gte.');
    expect(screen.getByLabelText('Tier 2 input price')).toHaveAccessibleDescription(/Must be 1000000 or less\./);
    expect(screen.getByLabelText('Match pattern')).toHaveAccessibleDescription(/not a valid regex pattern/);
    expect(screen.getByLabelText('Tier 2 input price')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('group', { name: 'Tier 2' })).toHaveTextContent('Not in a form this accepts.');
    const others = screen.getByRole('list', { name: 'Other problems' });
    expect(others).toHaveTextContent('somethingElse');
    expect(others).not.toHaveTextContent('matches none');
    // the keyboard is taken to the first refused field, in form order
    await waitFor(() => expect(screen.getByLabelText('Match pattern')).toHaveFocus());
  });

  it('a taken model name (a bare 400 message) is shown by the Model name field, which gets focus', async () => {
    mockServer.use(
      http.post(`${BASE_URL}/api/public/models`, () =>
        HttpResponse.json({ message: "Model name 'my-llama' already exists in project", error: 'InvalidRequestError' }, { status: 400 }),
      ),
    );
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    await user.type(screen.getByLabelText('Model name'), 'my-llama');
    await user.type(screen.getByLabelText('Match pattern'), '(?i)^my-llama$');
    await user.click(screen.getByRole('button', { name: 'Create model' }));
    expect(await screen.findByRole('alert')).toHaveTextContent("Model name 'my-llama' already exists in project");
    expect(screen.getByLabelText('Model name')).toHaveAccessibleDescription(/already exists in project/);
    await waitFor(() => expect(screen.getByLabelText('Model name')).toHaveFocus());
  });

  it('catches a price that is not a number without calling the server', async () => {
    const seen = recordRequests();
    renderSignedIn(<Models />);
    await userEvent.type(screen.getByLabelText('Model name'), 'x');
    await userEvent.type(screen.getByLabelText('Match pattern'), '^x$');
    await userEvent.type(screen.getByLabelText('Input price'), 'cheap');
    await userEvent.click(screen.getByRole('button', { name: 'Create model' }));
    expect(screen.getByLabelText('Input price')).toHaveAccessibleDescription(/"cheap" is not a number/);
    await waitFor(() => expect(screen.getByLabelText('Input price')).toHaveFocus());
    expect(seen.some((r) => r.method === 'POST')).toBe(false);
    // the message goes once the field is edited; another field's stays
    await userEvent.type(screen.getByLabelText('Output price'), 'pricey');
    await userEvent.click(screen.getByRole('button', { name: 'Create model' }));
    expect(screen.getByLabelText('Output price')).toHaveAccessibleDescription(/"pricey" is not a number/);
    await userEvent.clear(screen.getByLabelText('Input price'));
    await userEvent.type(screen.getByLabelText('Input price'), '0.000001');
    expect(screen.getByLabelText('Input price')).not.toHaveAccessibleDescription(/not a number/);
    expect(screen.getByLabelText('Output price')).toHaveAccessibleDescription(/"pricey" is not a number/);
    mockServer.events.removeAllListeners();
  });

  it('deletes a project model only after a confirming second press', async () => {
    serveModels(SEVERAL);
    const seen = recordRequests();
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const table = await screen.findByRole('table', { name: 'Models' });
    // managed models have no delete button
    expect(within(table).queryByRole('button', { name: 'Delete gpt-4o' })).toBeNull();
    await user.click(within(table).getByRole('button', { name: 'Delete my-llama' }));
    expect(seen.some((r) => r.method === 'DELETE')).toBe(false);
    const confirm = within(table).getByRole('button', { name: 'Confirm delete my-llama' });
    expect(confirm).toHaveFocus();
    // Escape backs out; the keyboard alone can then delete (Enter twice)
    await user.keyboard('{Escape}');
    expect(within(table).getByRole('button', { name: 'Delete my-llama' })).toHaveFocus();
    await user.keyboard('{Enter}');
    await user.keyboard('{Enter}');
    expect(await screen.findByText('Deleted model my-llama.')).toBeInTheDocument();
    expect(seen.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual(['/api/public/models/cm-mine']);
    mockServer.events.removeAllListeners();
  });

  it('after a delete, focus lands on the notice instead of falling to the page', async () => {
    serveModels(SEVERAL);
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const table = await screen.findByRole('table', { name: 'Models' });
    await user.click(within(table).getByRole('button', { name: 'Delete my-llama' }));
    await user.keyboard('{Enter}');
    const notice = await screen.findByText('Deleted model my-llama.');
    // the whole notice, with its offer to reprice, is what gets focus
    await waitFor(() => expect(notice.closest('[role="status"]')).toHaveFocus());
  });

  it("shows the server's reason when a delete fails", async () => {
    serveModels(SEVERAL);
    mockServer.use(
      http.delete(`${BASE_URL}/api/public/models/:id`, () =>
        HttpResponse.json({ message: 'No model with this id found.', error: 'LangfuseNotFoundError' }, { status: 404 }),
      ),
    );
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const table = await screen.findByRole('table', { name: 'Models' });
    await user.click(within(table).getByRole('button', { name: 'Delete my-llama' }));
    await user.click(within(table).getByRole('button', { name: 'Confirm delete my-llama' }));
    expect(await within(table).findByRole('alert')).toHaveTextContent('No model with this id found.');
  });

  it('explains a cost: model, tier reason, lines and total', async () => {
    const seen = recordRequests();
    // the spec's tiered example (a non-default tier chosen by its condition), not the default answer
    mockServer.use(mockOperation('models_explain', 'tieredPrice', { baseUrl: BASE_URL }));
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    await user.type(screen.getByLabelText('Generation model'), 'conformance-tiered');
    await user.click(screen.getByRole('button', { name: 'Explain cost' }));
    const result = await screen.findByRole('region', { name: 'Cost explanation' });
    expect(result).toHaveTextContent('conformance-tiered');
    expect(result).toHaveTextContent('(?i)^(conformance-tiered)$');
    expect(result).toHaveTextContent('Large Context (>200K) (priority 1)');
    expect(result).toHaveTextContent('sum of usage keys matching /(input|prompt|cached)/i = 250000 > 200000');
    expect(result).toHaveTextContent('inferred');
    const lines = within(result).getByRole('table', { name: 'Cost lines' });
    const input = within(lines).getByRole('row', { name: /^input/ });
    expect(input).toHaveTextContent('250,000');
    expect(input).toHaveTextContent('0.0000025');
    expect(input).toHaveTextContent('0.625');
    expect(within(lines).getByRole('row', { name: /^Total/ })).toHaveTextContent('$0.64');
    expect(seen.find((r) => r.path === '/api/public/models/explain')?.body).toEqual({
      model: 'conformance-tiered',
      usageDetails: { input: 250000, output: 1000 },
    });
    mockServer.events.removeAllListeners();
  });

  it('shows a partly priced explain result as a warning, with what partial means', async () => {
    const partlyPriced: ExplainCostResponse = {
      model: { id: 'cm-mine', modelName: 'my-llama', matchPattern: '(?i)^(my-llama)$', isLangfuseManaged: false },
      tier: { id: 't0', name: 'Standard', priority: 0, isDefault: true },
      tierReason: 'default tier',
      usageShape: 'map',
      usageDetails: { input: 100, output: 10 },
      costDetails: { input: 0.0001, total: 0.0001 },
      lines: [],
      unpricedUsageKeys: ['output'],
      usagePricedAs: {},
      totalCost: 0.0001,
      costStatus: 'partial',
      warnings: [],
    };
    mockServer.use(http.post(`${BASE_URL}/api/public/models/explain`, () => HttpResponse.json(partlyPriced)));
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    await user.type(screen.getByLabelText('Generation model'), 'my-llama');
    await user.click(screen.getByRole('button', { name: 'Explain cost' }));
    const result = await screen.findByRole('region', { name: 'Cost explanation' });
    expect(within(result).getByText('partial')).toHaveClass('badge warn', { exact: true });
    expect(result).toHaveTextContent('some usage buckets have no price in the models list');
  });

  it('reports invalid usage JSON next to the field without calling the server', async () => {
    const seen = recordRequests();
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const usage = screen.getByLabelText('Usage (JSON)');
    await user.clear(usage);
    await user.click(usage);
    await user.paste('{"input": 12,');
    await user.click(screen.getByRole('button', { name: 'Explain cost' }));
    expect(usage).toHaveAccessibleDescription(/Not valid JSON/);
    expect(usage).toHaveAttribute('aria-invalid', 'true');
    expect(seen.some((r) => r.path === '/api/public/models/explain')).toBe(false);
    mockServer.events.removeAllListeners();
  });
});
