// The selected observation: what it was, its input and output, usage buckets, cost lines.
import type { Observation } from '../../../../sdk/index.ts';
import { formatSeconds, formatTime } from '../../format.ts';
import { generationsHref } from '../../links.ts';
import { CostLines, UsageBuckets } from './CostLines.tsx';
import { JsonView } from './JsonView.tsx';

export function ObservationPanel({ o }: { o: Observation }) {
  const priced = o.type === 'GENERATION' || o.type === 'EMBEDDING' || Object.keys(o.usageDetails).length > 0;
  return (
    <section className="card obs-panel" aria-labelledby="obs-title">
      <h2 id="obs-title">
        <span className={`badge type type-${o.type.toLowerCase()}`}>{o.type}</span> {o.name || <code>{o.id}</code>}
      </h2>
      <dl className="facts">
        <dt>Observation id</dt>
        <dd>
          <code>{o.id}</code>
        </dd>
        {o.model ? (
          <>
            <dt>Model</dt>
            <dd>
              <a href={generationsHref({ model: o.model })}>{o.model}</a>
            </dd>
          </>
        ) : null}
        <dt>Start</dt>
        <dd>{formatTime(o.startTime)}</dd>
        <dt>Latency</dt>
        <dd>{o.endTime ? formatSeconds(o.latency ?? null) : 'not ended'}</dd>
        {o.timeToFirstToken !== null && o.timeToFirstToken !== undefined ? (
          <>
            <dt>Time to first token</dt>
            <dd>{formatSeconds(o.timeToFirstToken)}</dd>
          </>
        ) : null}
        <dt>Level</dt>
        <dd>
          {o.level ?? 'DEFAULT'}
          {o.statusMessage ? <span className="muted"> · {o.statusMessage}</span> : null}
        </dd>
        {o.promptName ? (
          <>
            <dt>Prompt</dt>
            <dd>
              {o.promptName}
              {o.promptVersion !== null && o.promptVersion !== undefined ? ` v${o.promptVersion}` : ''}
            </dd>
          </>
        ) : null}
      </dl>
      <JsonView label="Input" value={o.input} />
      <JsonView label="Output" value={o.output} />
      {o.metadata !== null && o.metadata !== undefined ? <JsonView label="Metadata" value={o.metadata} open={false} /> : null}
      {priced ? (
        <>
          <h3>Usage</h3>
          <UsageBuckets o={o} />
          <h3>Cost</h3>
          <CostLines o={o} />
        </>
      ) : null}
    </section>
  );
}
