// The models page's Reprice panel against the spec-example msw handlers; a job's life (queued →
// running → succeeded or failed) is scripted per test with mockServer.use, and every request body
// the panel sends is recorded so that the tests assert exactly what reaches the server.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Models } from '../src/pages/Models.tsx';
import { resolveWindow, windowText } from '../src/pages/models/reprice-window.ts';
import type { RepriceJob, RepriceRequest } from '../../sdk/index.ts';
import { model, serveModels } from './models-fixture.ts';
import { BASE_URL, mockServer, renderSignedIn } from './render.tsx';

const NOW = new Date('2026-11-25T10:00:00.000Z');
const WAIT = { timeout: 4000 };

function job(over: Partial<RepriceJob>): RepriceJob {
  return {
    id: 'job-1',
    status: 'queued',
    dryRun: true,
    fromTimestamp: '2026-11-18T10:00:00.000Z',
    toTimestamp: '2026-11-25T10:00:00.000Z',
    modelIds: null,
    requestedBy: 'pk-lf-test',
    createdAt: '2026-11-25T10:00:00.000Z',
    startedAt: null,
    finishedAt: null,
    generationsScanned: 0,
    generationsChanged: 0,
    costBefore: 0,
    costAfter: 0,
    changes: [],
    error: null,
    ...over,
  };
}

const DONE_CHANGES: RepriceJob['changes'] = [
  { day: '2026-11-20', model: 'gpt-4o-mini', modelId: 'cm-mine', generations: 120, costBefore: 0.6, costAfter: 1.2 },
  { day: '2026-11-19', model: 'gpt-4o-mini', modelId: 'cm-mine', generations: 100, costBefore: 0.5, costAfter: 1 },
  { day: '2026-11-20', model: 'legacy-model', modelId: null, generations: 80, costBefore: 0.4, costAfter: 0 },
];

/**
 * Scripts the reprice endpoints: each POST starts the next job of `jobs` (its id, `queued`); each
 * read of a job answers its next state, then keeps answering the last one.
 */
function scriptJobs(jobs: RepriceJob[][]) {
  const posted: RepriceRequest[] = [];
  const reads: Record<string, number> = {};
  mockServer.use(
    http.post(`${BASE_URL}/api/public/models/reprice`, async ({ request }) => {
      posted.push((await request.json()) as RepriceRequest);
      const states = jobs[posted.length - 1];
      if (!states) return HttpResponse.json({ message: 'no more jobs scripted' }, { status: 500 });
      return HttpResponse.json({ id: states[0]!.id, status: 'queued' }, { status: 202 });
    }),
    http.get(`${BASE_URL}/api/public/models/reprice/:id`, ({ params }) => {
      const id = String(params.id);
      const states = jobs.find((s) => s[0]!.id === id);
      if (!states) return HttpResponse.json({ message: 'Reprice job not found within authorized project' }, { status: 404 });
      const n = reads[id] ?? 0;
      reads[id] = n + 1;
      return HttpResponse.json(states[Math.min(n, states.length - 1)]);
    }),
  );
  return { posted, reads };
}

/** a dry run (or, with dryRun false, an apply) going queued → running → succeeded */
function lifeOf(id: string, dryRun: boolean, over: Partial<RepriceJob> = {}): RepriceJob[] {
  return [
    job({ id, dryRun, ...over }),
    job({
      id,
      dryRun,
      status: 'running',
      startedAt: '2026-11-25T10:00:01.000Z',
      generationsScanned: 500,
      generationsChanged: 100,
      costBefore: 0.5,
      costAfter: 1,
      changes: [DONE_CHANGES[1]!],
      ...over,
    }),
    job({
      id,
      dryRun,
      status: 'succeeded',
      startedAt: '2026-11-25T10:00:01.000Z',
      finishedAt: '2026-11-25T10:00:03.000Z',
      generationsScanned: 1200,
      generationsChanged: 300,
      costBefore: 1.5,
      costAfter: 2.2,
      changes: DONE_CHANGES,
      ...over,
    }),
  ];
}

const MINE = model({ id: 'cm-mine', modelName: 'my-llama', matchPattern: '(?i)^(my-llama)$' });

async function openPanel(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('button', { name: 'Reprice past generations…' }));
  return screen.getByRole('region', { name: 'Reprice past generations' });
}

const progress = (panel: HTMLElement) => panel.querySelector('.reprice-progress') as HTMLElement;

beforeEach(() => {
  // only Date: the panel's reads every 500 ms run on real timers
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Reprice panel', () => {
  it('after a model is created, the notice offers Reprice, which opens the panel scoped to that model', async () => {
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    await screen.findByRole('table', { name: 'Models' });
    expect(screen.queryByRole('region', { name: 'Reprice past generations' })).toBeNull();
    // what the mock's models_create answers (its first example, whatever is sent)
    await user.type(screen.getByLabelText('Model name'), 'acme-ft-gpt-4o-mini');
    await user.type(screen.getByLabelText('Match pattern'), '(?i)^(ft:gpt-4o-mini-2024-07-18:acme(:.*)?)$');
    await user.type(screen.getByLabelText('Input price'), '0.0000003');
    await user.click(screen.getByRole('button', { name: 'Create model' }));

    const notice = (await screen.findByText('Created model acme-ft-gpt-4o-mini.')).closest('[role="status"]') as HTMLElement;
    expect(notice).toHaveTextContent('Prices changed: past generations keep their old cost.');
    await user.click(within(notice).getByRole('button', { name: 'Reprice…' }));

    const panel = screen.getByRole('region', { name: 'Reprice past generations' });
    expect(within(panel).getByRole('heading', { name: 'Reprice past generations' })).toHaveFocus();
    const only = within(panel).getByRole('checkbox', { name: 'Only generations of the models just changed' });
    expect(only).toBeChecked();
    expect(only).toHaveAccessibleDescription(/created acme-ft-gpt-4o-mini/);
    expect(screen.getByRole('button', { name: 'Reprice past generations…' })).toHaveAttribute('aria-expanded', 'true');
  });

  it('Preview sends a dry run of the window, follows it queued → running → succeeded, shows the changes with totals, then stops reading', async () => {
    const { posted, reads } = scriptJobs([lifeOf('job-dry', true)]);
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const panel = await openPanel(user);
    await user.click(within(panel).getByRole('radio', { name: 'Last 7 days' }));
    await user.click(within(panel).getByRole('button', { name: 'Preview' }));

    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toEqual({ fromTimestamp: '2026-11-18T10:00:00.000Z', toTimestamp: '2026-11-25T10:00:00.000Z', dryRun: true });
    const status = progress(panel);
    expect(status).toHaveAttribute('role', 'status');
    expect(status).toHaveAttribute('aria-live', 'polite');
    await waitFor(() => expect(status).toHaveTextContent('Preview queued: waiting for a worker…'), WAIT);
    await waitFor(() => expect(status).toHaveTextContent('Preview running: 500 generations scanned, 100 would change so far…'), WAIT);
    // the rows grow while the job runs
    expect(within(panel).getByRole('table', { name: 'Changes the preview found' })).toHaveTextContent('2026-11-19');
    await waitFor(
      () => expect(status).toHaveTextContent('Preview done: 1,200 generations scanned, 300 would change, $1.50 → $2.20.'),
      WAIT,
    );

    const table = within(panel).getByRole('table', { name: 'Changes the preview found' });
    const rows = within(table).getAllByRole('row');
    // header, three changes by day then model, totals
    expect(rows).toHaveLength(5);
    expect(rows[1]).toHaveTextContent(/2026-11-19\s*gpt-4o-mini\s*100\s*\$0\.50\s*\$1\.00\s*\+\$0\.50/);
    expect(rows[2]).toHaveTextContent(/2026-11-20\s*gpt-4o-mini\s*120\s*\$0\.60\s*\$1\.20\s*\+\$0\.60/);
    expect(rows[3]).toHaveTextContent(/2026-11-20\s*legacy-model\s*no definition prices it now\s*80\s*\$0\.40\s*\$0\.00\s*-\$0\.40/);
    expect(rows[4]).toHaveTextContent(/Total\s*300\s*\$1\.50\s*\$2\.20\s*\+\$0\.70/);
    expect(panel).toHaveTextContent('Window: 2026-11-18 10:00 – 2026-11-25 10:00 UTC, every model (dry run: nothing written).');

    // finished: no more reads, however long the panel stays open
    const done = reads['job-dry'];
    expect(done).toBe(3);
    await new Promise((r) => setTimeout(r, 1200));
    expect(reads['job-dry']).toBe(done);
    expect(posted).toHaveLength(1);
  });

  it('Apply is refused before a preview, then sends the previewed window and models with dryRun false and shows its report', async () => {
    serveModels([MINE]);
    const { posted, reads } = scriptJobs([lifeOf('job-dry', true), lifeOf('job-real', false)]);
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const models = await screen.findByRole('table', { name: 'Models' });
    await user.click(within(models).getByRole('button', { name: 'Delete my-llama' }));
    await user.click(within(models).getByRole('button', { name: 'Confirm delete my-llama' }));
    const notice = (await screen.findByText('Deleted model my-llama.')).closest('[role="status"]') as HTMLElement;
    await user.click(within(notice).getByRole('button', { name: 'Reprice…' }));
    const panel = screen.getByRole('region', { name: 'Reprice past generations' });

    const apply = within(panel).getByRole('button', { name: 'Apply' });
    expect(apply).toHaveAttribute('aria-disabled', 'true');
    expect(apply).toHaveAccessibleDescription(/Preview first/);
    await user.click(apply);
    expect(posted).toHaveLength(0);

    await user.click(within(panel).getByRole('radio', { name: 'Custom days' }));
    await user.type(within(panel).getByLabelText('First day (UTC)'), '2026-10-01');
    await user.type(within(panel).getByLabelText('Last day (UTC)'), '2026-10-31');
    await user.click(within(panel).getByRole('button', { name: 'Preview' }));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toEqual({
      fromTimestamp: '2026-10-01T00:00:00.000Z',
      toTimestamp: '2026-11-01T00:00:00.000Z',
      dryRun: true,
      modelIds: ['cm-mine'],
    });
    // running: still refused
    expect(apply).toHaveAttribute('aria-disabled', 'true');
    await waitFor(() => expect(apply).not.toHaveAttribute('aria-disabled'), WAIT);
    expect(panel).toHaveTextContent('Window: 2026-10-01 – 2026-10-31 (UTC), only the models just changed (dry run: nothing written).');

    // another window is not what was previewed; going back to it is
    await user.clear(within(panel).getByLabelText('Last day (UTC)'));
    await user.type(within(panel).getByLabelText('Last day (UTC)'), '2026-10-30');
    expect(apply).toHaveAttribute('aria-disabled', 'true');
    expect(apply).toHaveAccessibleDescription(/changed since the preview/);
    await user.clear(within(panel).getByLabelText('Last day (UTC)'));
    await user.type(within(panel).getByLabelText('Last day (UTC)'), '2026-10-31');
    expect(apply).not.toHaveAttribute('aria-disabled');

    await user.click(apply);
    await waitFor(() => expect(posted).toHaveLength(2));
    expect(posted[1]).toEqual({
      fromTimestamp: '2026-10-01T00:00:00.000Z',
      toTimestamp: '2026-11-01T00:00:00.000Z',
      dryRun: false,
      modelIds: ['cm-mine'],
    });
    const status = progress(panel);
    await waitFor(() => expect(status).toHaveTextContent('Reprice running: 500 generations scanned, 100 changed so far…'), WAIT);
    await waitFor(() => expect(status).toHaveTextContent('Reprice done: 1,200 generations scanned, 300 changed, $1.50 → $2.20.'), WAIT);
    const report = within(panel).getByRole('table', { name: 'Changes applied' });
    expect(within(report).getAllByRole('row').at(-1)).toHaveTextContent(/Total\s*300\s*\$1\.50\s*\$2\.20\s*\+\$0\.70/);
    expect(within(panel).queryByRole('table', { name: 'Changes the preview found' })).toBeNull();
    // applied once: not again without a new preview
    expect(apply).toHaveAttribute('aria-disabled', 'true');
    expect(apply).toHaveAccessibleDescription(/Applied\. Preview again/);
    await user.click(apply);
    expect(posted).toHaveLength(2);
    expect(reads['job-real']).toBe(3);
  });

  it("a failed job shows the server's error", async () => {
    scriptJobs([
      [
        job({ id: 'job-bad' }),
        job({ id: 'job-bad', status: 'failed', generationsScanned: 2000, error: 'canceling statement due to statement timeout' }),
      ],
    ]);
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const panel = await openPanel(user);
    await user.click(within(panel).getByRole('button', { name: 'Preview' }));
    const alert = await within(panel).findByRole('alert', {}, WAIT);
    expect(alert).toHaveTextContent('The preview failed: canceling statement due to statement timeout');
    expect(progress(panel)).toHaveTextContent('Preview failed after 2,000 generations scanned, 0 would change.');
    expect(within(panel).getByRole('button', { name: 'Apply' })).toHaveAttribute('aria-disabled', 'true');
  });

  it("a refused start shows the server's message; a bad custom window is caught before any request", async () => {
    const seen: string[] = [];
    mockServer.events.on('request:start', ({ request }) => {
      if (request.method === 'POST') seen.push(new URL(request.url).pathname);
    });
    mockServer.use(
      http.post(`${BASE_URL}/api/public/models/reprice`, () =>
        HttpResponse.json({ message: 'toTimestamp must be after fromTimestamp', error: 'InvalidRequestError' }, { status: 400 }),
      ),
    );
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const panel = await openPanel(user);
    await user.click(within(panel).getByRole('radio', { name: 'Custom days' }));
    await user.click(within(panel).getByRole('button', { name: 'Preview' }));
    expect(within(panel).getByLabelText('First day (UTC)')).toHaveAccessibleDescription('Pick the first day');
    expect(within(panel).getByLabelText('Last day (UTC)')).toHaveAccessibleDescription(/Pick the last day/);
    await waitFor(() => expect(within(panel).getByLabelText('First day (UTC)')).toHaveFocus());

    await user.type(within(panel).getByLabelText('First day (UTC)'), '2026-10-31');
    await user.type(within(panel).getByLabelText('Last day (UTC)'), '2026-10-01');
    await user.click(within(panel).getByRole('button', { name: 'Preview' }));
    expect(within(panel).getByLabelText('Last day (UTC)')).toHaveAccessibleDescription(/The last day is before the first day/);
    await user.clear(within(panel).getByLabelText('First day (UTC)'));
    await user.type(within(panel).getByLabelText('First day (UTC)'), '2026-12-01');
    await user.click(within(panel).getByRole('button', { name: 'Preview' }));
    expect(within(panel).getByLabelText('First day (UTC)')).toHaveAccessibleDescription(/in the future/);
    expect(seen).toEqual([]);

    // a window the server refuses all the same: its words, in the console's error banner
    await user.clear(within(panel).getByLabelText('First day (UTC)'));
    await user.type(within(panel).getByLabelText('First day (UTC)'), '2026-09-01');
    await user.click(within(panel).getByRole('button', { name: 'Preview' }));
    const alert = await within(panel).findByRole('alert');
    expect(alert).toHaveTextContent('The preview was not started: toTimestamp must be after fromTimestamp (HTTP 400)');
    expect(seen).toEqual(['/api/public/models/reprice']);
    mockServer.events.removeAllListeners();
  });

  it('closing the panel stops reading a running job and gives focus back to its button', async () => {
    const running = job({ id: 'job-long', status: 'running', generationsScanned: 10 });
    const { reads } = scriptJobs([[job({ id: 'job-long' }), running]]);
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const panel = await openPanel(user);
    await user.click(within(panel).getByRole('button', { name: 'Preview' }));
    expect(within(panel).getByRole('button', { name: 'Previewing…' })).toHaveAttribute('aria-disabled', 'true');
    await waitFor(() => expect(reads['job-long']).toBeGreaterThanOrEqual(2), WAIT);
    await user.click(within(panel).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('region', { name: 'Reprice past generations' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Reprice past generations…' })).toHaveFocus();
    const at = reads['job-long'];
    await new Promise((r) => setTimeout(r, 1200));
    expect(reads['job-long']).toBe(at);
  });

  it('a read that fails says so and can be retried; the job is followed on from there', async () => {
    let reads = 0;
    mockServer.use(
      http.get(`${BASE_URL}/api/public/models/reprice/:id`, () => {
        reads++;
        return reads === 1
          ? HttpResponse.json({ message: 'Internal Server Error' }, { status: 500 })
          : HttpResponse.json(job({ id: 'cm3xg7d2h000cacme9k2m4p8q', status: 'succeeded', generationsScanned: 4, changes: [] }));
      }),
    );
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const panel = await openPanel(user);
    await user.click(within(panel).getByRole('button', { name: 'Preview' }));
    const alert = await within(panel).findByRole('alert', {}, WAIT);
    expect(alert).toHaveTextContent("Could not read the job's progress (it may still be running): Internal Server Error (HTTP 500)");
    // a job not known to be running holds nothing: another preview may start
    expect(within(panel).getByRole('button', { name: 'Preview' })).not.toHaveAttribute('aria-disabled');
    await user.click(within(panel).getByRole('button', { name: 'Check again' }));
    expect(await within(panel).findByText(/No generation in this window would change/)).toBeInTheDocument();
    expect(within(panel).queryByRole('alert')).toBeNull();
  });

  it('lists the recent reprice jobs: when, who, window, kind, status, changed and cost', async () => {
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const panel = await openPanel(user);
    const table = await within(panel).findByRole('table', { name: 'Recent reprice jobs' });
    // the spec's example: October applied, after a dry run of the same window
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    const [row, dryRun] = rows as [HTMLElement, HTMLElement];
    expect(row).toHaveTextContent('2026-11-25 10:04:30 UTC');
    expect(row).toHaveTextContent('pk-lf-3f9a6c2e-8b41-4d7e-a5c0-71e2d94b6f18');
    expect(row).toHaveTextContent('2026-10-01 – 2026-10-31 (UTC)');
    expect(row).toHaveTextContent('Applied');
    expect(row).toHaveTextContent('succeeded');
    expect(row).toHaveTextContent('300 of 1,200');
    expect(row).toHaveTextContent('$1.50 → $3.00');
    expect(dryRun).toHaveTextContent('2026-11-25 10:00:00 UTC');
    expect(dryRun).toHaveTextContent('Dry run');
    expect(dryRun).toHaveTextContent('succeeded');
    expect(dryRun).toHaveTextContent('300 of 1,200');
  });

  it("names a narrowed job's models where the page knows them, failed jobs with their error", async () => {
    serveModels([MINE]);
    mockServer.use(
      http.get(`${BASE_URL}/api/public/models/reprice`, () =>
        HttpResponse.json({
          data: [job({ id: 'j1', status: 'failed', dryRun: false, modelIds: ['cm-mine', 'cm-gone'], error: 'lease lost' })],
          meta: { page: 1, limit: 10, totalItems: 14, totalPages: 2 },
        }),
      ),
    );
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    await screen.findByRole('table', { name: 'Models' });
    const panel = await openPanel(user);
    const table = await within(panel).findByRole('table', { name: 'Recent reprice jobs' });
    const row = within(table).getAllByRole('row')[1]!;
    expect(row).toHaveTextContent('only my-llama, cm-gone');
    expect(row).toHaveTextContent(/failed\s*lease lost/);
    expect(panel).toHaveTextContent('The newest 1 of 14 jobs.');
  });

  it('reads the recent jobs again when a job is accepted and when it finishes', async () => {
    scriptJobs([lifeOf('job-dry', true)]);
    let lists = 0;
    mockServer.use(
      http.get(`${BASE_URL}/api/public/models/reprice`, ({ request }) => {
        lists++;
        const url = new URL(request.url);
        expect(url.searchParams.get('limit')).toBe('10');
        return HttpResponse.json({ data: [], meta: { page: 1, limit: 10, totalItems: 0, totalPages: 0 } });
      }),
    );
    const user = userEvent.setup();
    renderSignedIn(<Models />);
    const panel = await openPanel(user);
    expect(await within(panel).findByText('No reprice job yet.')).toBeInTheDocument();
    expect(lists).toBe(1);
    await user.click(within(panel).getByRole('button', { name: 'Preview' }));
    await waitFor(() => expect(progress(panel)).toHaveTextContent('Preview done'), WAIT);
    await waitFor(() => expect(lists).toBe(3));
  });
});

describe('reprice window', () => {
  it('presets count back from now; this month starts on the 1st at 00:00 UTC', () => {
    expect(resolveWindow({ choice: '30d', from: '', to: '' }, NOW).window).toEqual({
      fromTimestamp: '2026-10-26T10:00:00.000Z',
      toTimestamp: '2026-11-25T10:00:00.000Z',
    });
    expect(resolveWindow({ choice: 'month', from: '', to: '' }, NOW).window).toEqual({
      fromTimestamp: '2026-11-01T00:00:00.000Z',
      toTimestamp: '2026-11-25T10:00:00.000Z',
    });
  });

  it('custom days are whole UTC days, the last one included; impossible dates are refused', () => {
    expect(resolveWindow({ choice: 'custom', from: '2026-11-03', to: '2026-11-03' }, NOW)).toEqual({
      window: { fromTimestamp: '2026-11-03T00:00:00.000Z', toTimestamp: '2026-11-04T00:00:00.000Z' },
      errors: {},
    });
    expect(resolveWindow({ choice: 'custom', from: '2026-02-30', to: '0002-01-01' }, NOW)).toEqual({
      errors: { from: '"2026-02-30" is not a real date', to: 'The year 2 is before 1970' },
    });
  });

  it('writes whole days as days and other windows to the minute', () => {
    expect(windowText('2026-11-03T00:00:00.000Z', '2026-11-04T00:00:00.000Z')).toBe('2026-11-03 (UTC)');
    expect(windowText('2026-10-01T00:00:00Z', '2026-11-01T00:00:00Z')).toBe('2026-10-01 – 2026-10-31 (UTC)');
    expect(windowText('2026-11-18T10:00:00.000Z', '2026-11-25T10:00:00.000Z')).toBe('2026-11-18 10:00 – 2026-11-25 10:00 UTC');
  });
});
