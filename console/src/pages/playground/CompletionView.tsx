// What a playground call produced: the answer (growing while it streams), then its usage
// buckets, its cost and costStatus; or the failure, with the provider's kind and status.
import type { PlaygroundCompletion } from '../../../../sdk/index.ts';
import { COST_STATUS_HINT, costStatusClass } from '../../cost-status.ts';
import { formatCost } from '../../format.ts';
import { traceHref } from '../../links.ts';
import type { CallFailure } from './run.ts';

export function AnswerText({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <section className="answer" aria-label="Answer" aria-busy={streaming}>
      <h3>Answer{streaming ? <span className="muted"> (streaming…)</span> : null}</h3>
      <pre data-testid="answer-text">{text || (streaming ? '…' : '')}</pre>
    </section>
  );
}

export function CompletionDetails({ c }: { c: PlaygroundCompletion }) {
  const usage = Object.entries(c.usageDetails);
  const cost = Object.entries(c.costDetails).filter(([k]) => k !== 'total');
  return (
    <div className="completion-details">
      <p className="muted">
        {c.responseModel ? (
          <>
            Answered by <code>{c.responseModel}</code> ·{' '}
          </>
        ) : null}
        {c.latencyMs} ms · trace{' '}
        <a href={traceHref(c.traceId, c.observationId)}>
          <code>{c.traceId}</code>
        </a>
      </p>
      {c.toolCalls.length ? (
        <>
          <h3>Tool calls</h3>
          {c.toolCalls.map((t, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a finished completion's tool calls never reorder
            <pre key={i}>
              {t.name}({t.arguments})
            </pre>
          ))}
        </>
      ) : null}
      <div className="grid-2">
        <div className="table-wrap">
          <table aria-label="Usage">
            <caption>Usage</caption>
            <thead>
              <tr>
                <th scope="col">Usage key</th>
                <th scope="col" className="num">
                  Units
                </th>
              </tr>
            </thead>
            <tbody>
              {usage.length ? (
                usage.map(([k, v]) => (
                  <tr key={k}>
                    <th scope="row">{k}</th>
                    <td className="num">{v.toLocaleString('en-US')}</td>
                  </tr>
                ))
              ) : (
                <tr>
                  <td colSpan={2} className="muted">
                    The provider reported no usage.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        <div className="table-wrap">
          <table aria-label="Cost">
            <caption>Cost (USD)</caption>
            <thead>
              <tr>
                <th scope="col">Usage key</th>
                <th scope="col" className="num">
                  Cost
                </th>
              </tr>
            </thead>
            <tbody>
              {cost.map(([k, v]) => (
                <tr key={k}>
                  <th scope="row">{k}</th>
                  <td className="num">{formatCost(v)}</td>
                </tr>
              ))}
              <tr className="total">
                <th scope="row">Total cost</th>
                <td className="num">{c.totalCost === null ? 'not priced' : formatCost(c.totalCost)}</td>
              </tr>
            </tbody>
          </table>
        </div>
      </div>
      <p>
        <span className={costStatusClass(c.costStatus)}>Cost status: {c.costStatus}</span>{' '}
        <span className="muted">{COST_STATUS_HINT[c.costStatus]}</span>
      </p>
      {c.warnings.length ? (
        <ul className="warnings" aria-label="Warnings">
          {c.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function FailureBanner({ f }: { f: CallFailure }) {
  return (
    <div className="error-banner" role="alert">
      <strong>{f.kind ? `Provider failure: ${f.kind}` : 'The call failed'}</strong>
      {f.providerStatus !== undefined ? ` (provider status ${f.providerStatus})` : ''}: {f.message}
      {f.status ? <span className="muted"> (HTTP {f.status})</span> : null}
    </div>
  );
}
