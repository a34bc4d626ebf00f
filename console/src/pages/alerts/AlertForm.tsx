// A spend alert, new or edited: what to measure (cost or calls), per user or session or in total,
// over which window, the thresholds, and the webhook. "Preview" runs the same metrics query now and
// shows the current value of the top groups, so the thresholds can be set against real numbers. An
// edit leaves the secret blank to keep the stored one (the server never gives it back).
import { useState } from 'react';
import type { Alert, AlertGroupBy, AlertRequest } from '../../../../sdk/index.ts';
import { describeError, useTally, type FieldErrors, type ProblemText } from '../../api.ts';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { Field } from '../../components/Field.tsx';

const METRICS = {
  cost: { measure: 'totalCost', aggregation: 'sum', label: 'Cost (USD)' },
  calls: { measure: 'count', aggregation: 'count', label: 'Observations' },
} as const;
type MetricKey = keyof typeof METRICS;

interface Draft {
  name: string;
  metric: MetricKey;
  /** '' for the whole project */
  groupBy: '' | NonNullable<AlertGroupBy>['field'];
  window: string;
  warning: string;
  alert: string;
  url: string;
  secret: string;
}

const EMPTY: Draft = { name: '', metric: 'cost', groupBy: 'userId', window: '1440', warning: '', alert: '', url: '', secret: '' };

/** the form's metric for an alert's, or null for one this form does not offer (defined through the API) */
const metricKey = (a: Alert): MetricKey | null =>
  (Object.entries(METRICS).find(([, m]) => m.measure === a.query.metric.measure && m.aggregation === a.query.metric.aggregation)?.[0] as
    | MetricKey
    | undefined) ?? null;

/** whether the form can edit an alert without losing part of its definition */
export const editable = (a: Alert) =>
  metricKey(a) !== null && !a.baseline && !a.query.filters?.length && a.condition.operator === 'gt' && a.webhook.format === 'json';

const draftOf = (a: Alert): Draft => ({
  name: a.name,
  metric: metricKey(a) ?? 'cost',
  groupBy: a.groupBy?.field ?? '',
  window: a.calendarMonth ? 'month' : String(a.windowMinutes),
  warning: a.condition.warning === null || a.condition.warning === undefined ? '' : String(a.condition.warning),
  alert: String(a.condition.alert),
  url: a.webhook.url,
  secret: '',
});

/** the request body of a draft; `calendar` for the month so far */
/** the issue paths each control answers for */
const FIELD_PATHS: Record<keyof Draft, string[]> = {
  name: ['name'],
  metric: ['query', 'query.metric'],
  groupBy: ['groupBy', 'groupBy.field'],
  window: ['windowMinutes', 'calendarMonth'],
  warning: ['condition.warning', 'condition'],
  alert: ['condition.alert'],
  url: ['webhook.url', 'webhook'],
  secret: ['webhook.secret'],
};

/** what is missing before the server need be asked, keyed like its issue paths */
export function localProblems(d: Draft, creating: boolean): FieldErrors {
  const out: FieldErrors = {};
  if (!d.name.trim()) out.name = 'Required.';
  if (d.alert.trim() === '' || !Number.isFinite(Number(d.alert))) out['condition.alert'] = 'Give the alert threshold, a number.';
  if (d.warning.trim() !== '' && !Number.isFinite(Number(d.warning))) out['condition.warning'] = 'Must be a number, or left empty.';
  if (!d.url.trim()) out['webhook.url'] = 'Required: the URL the alert posts to.';
  if ((creating || d.secret) && d.secret.length < 16) out['webhook.secret'] = 'Must be at least 16 characters long.';
  return out;
}

export function requestOf(d: Draft): AlertRequest {
  const m = METRICS[d.metric];
  return {
    name: d.name.trim(),
    query: { view: 'observations', metric: { measure: m.measure, aggregation: m.aggregation } },
    groupBy: d.groupBy ? { field: d.groupBy, topN: 100 } : null,
    ...(d.window === 'month' ? { calendarMonth: true } : { windowMinutes: Number(d.window) }),
    condition: { operator: 'gt', warning: d.warning.trim() === '' ? null : Number(d.warning), alert: Number(d.alert) },
    webhook: d.secret ? { url: d.url.trim(), secret: d.secret } : { url: d.url.trim() },
  };
}

const WINDOWS: [string, string][] = [
  ['60', 'last hour'],
  ['1440', 'last 24 hours'],
  ['10080', 'last 7 days'],
  ['month', 'calendar month so far'],
];

export function AlertForm({ initial, onSaved, onCancel }: { initial?: Alert; onSaved: (a: Alert) => void; onCancel?: () => void }) {
  const tally = useTally();
  const [d, setD] = useState<Draft>(() => (initial ? draftOf(initial) : EMPTY));
  const [problem, setProblem] = useState<ProblemText>();
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<{ group: string; value: number | null }[]>();
  // messages by issue path; a field's go as soon as it is edited
  const [fields, setFields] = useState<FieldErrors>({});
  const errorOf = (k: keyof Draft) =>
    FIELD_PATHS[k]
      .map((p) => fields[p])
      .filter(Boolean)
      .join(' ') || undefined;
  const set = (k: keyof Draft) => (e: { target: { value: string } }) => {
    setD((x) => ({ ...x, [k]: e.target.value }));
    setFields((f) => Object.fromEntries(Object.entries(f).filter(([p]) => !FIELD_PATHS[k].includes(p))));
  };

  const runPreview = async () => {
    setProblem(undefined);
    const body = requestOf(d);
    const to = new Date();
    const from =
      d.window === 'month'
        ? new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), 1))
        : new Date(to.getTime() - Number(d.window) * 60_000);
    const alias = `${body.query.metric.aggregation}_${body.query.metric.measure}`;
    const query = {
      view: 'observations',
      metrics: [body.query.metric],
      dimensions: d.groupBy ? [{ field: d.groupBy }] : [],
      ...(d.groupBy ? { orderBy: [{ field: alias, direction: 'desc' }], config: { row_limit: 10 } } : {}),
      fromTimestamp: from.toISOString(),
      toTimestamp: to.toISOString(),
    };
    try {
      const { data } = await tally.metrics.query({ query: { query: JSON.stringify(query) } });
      setPreview(
        (data.data as Record<string, unknown>[]).map((r) => ({
          group: d.groupBy ? String(r[d.groupBy] ?? '') : 'all',
          value: r[alias] === null || r[alias] === undefined ? null : Number(r[alias]),
        })),
      );
    } catch (e) {
      setProblem(describeError(e));
    }
  };

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setProblem(undefined);
    const missing = localProblems(d, !initial);
    setFields(missing);
    if (Object.keys(missing).length) return;
    setBusy(true);
    try {
      const body = requestOf(d);
      const { data } = initial
        ? await tally.alerts.update({
            path: { id: initial.id },
            body: {
              ...body,
              intervalSeconds: initial.intervalSeconds,
              noData: initial.noData,
              enabled: initial.enabled,
              groupBy: body.groupBy ? { ...body.groupBy, topN: initial.groupBy?.topN ?? 100 } : null,
            },
          })
        : await tally.alerts.create({ body });
      if (!initial) setD(EMPTY);
      setPreview(undefined);
      onSaved(data);
    } catch (err) {
      const p = describeError(err);
      setProblem(p);
      setFields(p.fields);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="alert-form" onSubmit={submit} aria-label={initial ? `Edit ${initial.name}` : 'New alert'} noValidate>
      <h2>{initial ? `Edit ${initial.name}` : 'New alert'}</h2>
      <Field label="Name" error={errorOf('name')}>
        {(ids) => <input {...ids} value={d.name} onChange={set('name')} required />}
      </Field>
      <Field label="Measure">
        {(ids) => (
          <select {...ids} value={d.metric} onChange={set('metric')}>
            {Object.entries(METRICS).map(([k, m]) => (
              <option key={k} value={k}>
                {m.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Per" hint="Each user (or session) is its own alert: only those over a threshold are told">
        {(ids) => (
          <select {...ids} value={d.groupBy} onChange={set('groupBy')}>
            <option value="userId">user</option>
            <option value="sessionId">session</option>
            <option value="">the whole project</option>
          </select>
        )}
      </Field>
      <Field label="Window" error={errorOf('window')}>
        {(ids) => (
          <select {...ids} value={d.window} onChange={set('window')}>
            {WINDOWS.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
            {WINDOWS.some(([v]) => v === d.window) ? null : <option value={d.window}>last {d.window} minutes</option>}
          </select>
        )}
      </Field>
      <Field label="Warning above" hint="Optional" error={errorOf('warning')}>
        {(ids) => <input {...ids} type="number" step="any" value={d.warning} onChange={set('warning')} />}
      </Field>
      <Field label="Alert above" error={errorOf('alert')}>
        {(ids) => <input {...ids} type="number" step="any" value={d.alert} onChange={set('alert')} required />}
      </Field>
      <Field label="Webhook URL" error={errorOf('url')}>
        {(ids) => <input {...ids} type="url" value={d.url} onChange={set('url')} required />}
      </Field>
      <Field
        label="Webhook secret"
        error={errorOf('secret')}
        hint={
          initial
            ? 'Leave blank to keep the stored secret'
            : 'At least 16 characters; signs every delivery (X-Tally-Signature); never shown again'
        }
      >
        {(ids) => <input {...ids} type="password" value={d.secret} onChange={set('secret')} required={!initial} minLength={16} />}
      </Field>
      <div className="actions">
        <button type="button" onClick={runPreview}>
          Preview
        </button>
        <button type="submit" disabled={busy}>
          {initial ? 'Save' : 'Create alert'}
        </button>
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
      {preview ? (
        <table className="preview" aria-label="Current values">
          <thead>
            <tr>
              <th>{d.groupBy ? (d.groupBy === 'userId' ? 'User' : 'Session') : 'Scope'}</th>
              <th>Now</th>
            </tr>
          </thead>
          <tbody>
            {preview.length ? (
              preview.map((p) => (
                <tr key={p.group}>
                  <td>{p.group || '(none)'}</td>
                  <td>{p.value ?? 'no data'}</td>
                </tr>
              ))
            ) : (
              <tr>
                <td colSpan={2}>No data in this window</td>
              </tr>
            )}
          </tbody>
        </table>
      ) : null}
      <ErrorBanner problem={problem} />
    </form>
  );
}
