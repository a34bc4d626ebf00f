// Spend alerts: each alert with how many of its groups are warning or alerting, one alert's groups
// (state, value, since) and its delivery log, and the form that creates one. Enabling and
// disabling sends the alert back with its definition (its secret stays on the server).
import { useState } from 'react';
import type { Alert } from '../../../sdk/index.ts';
import { describeError, useTally, type ProblemText } from '../api.ts';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorBanner } from '../components/ErrorBanner.tsx';
import { useLoad } from '../hooks.ts';
import { AlertForm, editable } from './alerts/AlertForm.tsx';
import './alerts/alerts.css';

const windowText = (a: Alert) =>
  a.calendarMonth ? 'calendar month' : a.windowMinutes! % 1440 === 0 ? `${a.windowMinutes! / 1440} d` : `${a.windowMinutes} min`;
const conditionText = (a: Alert) =>
  `${a.condition.operator === 'gt' ? '>' : '≥'} ${a.condition.alert}${a.condition.warning !== null && a.condition.warning !== undefined ? ` (warning ${a.condition.warning})` : ''}`;

function worst(a: Alert): 'alerting' | 'warning' | 'ok' {
  if (a.groups.some((g) => g.state === 'alerting')) return 'alerting';
  return a.groups.some((g) => g.state === 'warning') ? 'warning' : 'ok';
}

function Detail({ alert, onChanged }: { alert: Alert; onChanged: (a: Alert) => void }) {
  const tally = useTally();
  const log = useLoad(async () => (await tally.alerts.deliveries({ path: { id: alert.id } })).data.data, [alert.id]);
  const [problem, setProblem] = useState<ProblemText>();
  const [editing, setEditing] = useState(false);
  const toggle = async () => {
    setProblem(undefined);
    try {
      const { webhook, groupBy, windowMinutes, calendarMonth, query, condition, baseline, noData, intervalSeconds, name } = alert;
      const { data } = await tally.alerts.update({
        path: { id: alert.id },
        body: {
          name,
          query,
          groupBy,
          ...(calendarMonth ? { calendarMonth: true } : { windowMinutes: windowMinutes! }),
          condition,
          baseline,
          noData,
          intervalSeconds,
          webhook: { url: webhook.url, format: webhook.format },
          enabled: !alert.enabled,
        },
      });
      onChanged(data);
    } catch (e) {
      setProblem(describeError(e));
    }
  };
  const by = alert.groupBy ? (alert.groupBy.field === 'userId' ? 'User' : 'Session') : 'Scope';
  return (
    <section className="alert-detail" aria-label={`Alert ${alert.name}`}>
      <h2>{alert.name}</h2>
      <p>
        {alert.query.metric.aggregation} of {alert.query.metric.measure} over {windowText(alert)} {conditionText(alert)}, every{' '}
        {alert.intervalSeconds} s, to {alert.webhook.url}{' '}
        <button type="button" onClick={toggle}>
          {alert.enabled ? 'Disable' : 'Enable'}
        </button>{' '}
        {editable(alert) ? (
          <button type="button" onClick={() => setEditing(true)} disabled={editing}>
            Edit
          </button>
        ) : (
          <span className="muted">(defined through the API: edit it there)</span>
        )}
      </p>
      <ErrorBanner problem={problem} />
      {editing ? (
        <AlertForm
          key={alert.id}
          initial={alert}
          onSaved={(a) => {
            setEditing(false);
            onChanged(a);
          }}
          onCancel={() => setEditing(false)}
        />
      ) : null}
      <table aria-label="Groups">
        <thead>
          <tr>
            <th>{by}</th>
            <th>State</th>
            <th>Value</th>
            <th>Since</th>
          </tr>
        </thead>
        <tbody>
          {alert.groups.length ? (
            alert.groups.map((g) => (
              <tr key={g.group}>
                <td>{g.group || 'all'}</td>
                <td>
                  <span className={`badge ${g.state}`}>{g.state}</span>
                </td>
                <td>{g.value ?? 'no data'}</td>
                <td>{new Date(g.since).toLocaleString()}</td>
              </tr>
            ))
          ) : (
            <tr>
              <td colSpan={4}>{alert.groupBy ? 'Every group is ok' : 'Not evaluated yet'}</td>
            </tr>
          )}
        </tbody>
      </table>
      <h3>Deliveries</h3>
      <ErrorBanner problem={log.error} />
      <table aria-label="Deliveries">
        <thead>
          <tr>
            <th>Time</th>
            <th>{by}</th>
            <th>Event</th>
            <th>Attempt</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {(log.data ?? []).map((l) => (
            <tr key={`${l.deliveryId}-${l.attempt}`}>
              <td>{new Date(l.at).toLocaleString()}</td>
              <td>{l.group || 'all'}</td>
              <td>{l.event}</td>
              <td>{l.attempt}</td>
              <td>{l.error ?? l.statusCode}</td>
            </tr>
          ))}
          {log.data && !log.data.length ? (
            <tr>
              <td colSpan={5}>Nothing sent yet</td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </section>
  );
}

export function Alerts() {
  const tally = useTally();
  const loaded = useLoad(async () => (await tally.alerts.list({ query: { limit: 100 } })).data.data, []);
  const [patched, setPatched] = useState<Record<string, Alert>>({});
  const [added, setAdded] = useState<Alert[]>([]);
  const alerts = [...added, ...(loaded.data ?? [])].map((a) => patched[a.id] ?? a);
  const [chosen, setChosen] = useState<string>();
  const selected = alerts.find((a) => a.id === chosen) ?? alerts[0];
  return (
    <div className="alerts">
      <section aria-label="Alerts">
        <h2>Alerts</h2>
        <ErrorBanner problem={loaded.error} />
        {loaded.data && !alerts.length ? (
          <EmptyState title="No alerts yet">Create one below: a threshold on cost or calls, per user or in total.</EmptyState>
        ) : null}
        <ul className="alert-list">
          {alerts.map((a) => (
            <li key={a.id} className={a.id === selected?.id ? 'selected' : undefined}>
              <button type="button" onClick={() => setChosen(a.id)} aria-pressed={a.id === selected?.id}>
                {a.name}
              </button>{' '}
              <span className={`badge ${a.enabled ? worst(a) : ''}`}>{a.enabled ? worst(a) : 'disabled'}</span>{' '}
              <span className="muted">{a.groups.filter((g) => g.state !== 'ok').length} of its groups over a threshold</span>
            </li>
          ))}
        </ul>
      </section>
      {selected ? <Detail alert={selected} onChanged={(a) => setPatched((p) => ({ ...p, [a.id]: a }))} /> : null}
      <AlertForm onSaved={(a) => setAdded((x) => [a, ...x])} />
    </div>
  );
}
