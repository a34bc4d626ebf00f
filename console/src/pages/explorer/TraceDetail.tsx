// One trace (`#/traces/<id>`): who and when, the observation tree with timings, the selected
// observation's input, output, usage and cost, and the trace's scores.
import { useMemo } from 'react';
import type { Observation, TraceWithObservations } from '../../../../sdk/index.ts';
import { useTally } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorBanner } from '../../components/ErrorBanner.tsx';
import { formatCost, formatSeconds, formatTime } from '../../format.ts';
import { useLoad } from '../../hooks.ts';
import { tracesHref } from '../../links.ts';
import { JsonView } from './JsonView.tsx';
import { ObservationPanel } from './ObservationPanel.tsx';
import { ObservationTree } from './ObservationTree.tsx';
import { TraceScores } from './TraceScores.tsx';
import { buildTree, flatten, spanOf } from './tree.ts';

export function TraceDetail({ traceId, observationId }: { traceId: string; observationId: string | null }) {
  const tally = useTally();
  const loaded = useLoad(async () => (await tally.trace.get({ path: { traceId } })).data, [traceId]);
  const trace = loaded.data;
  const tree = useMemo(() => (trace ? buildTree(trace.observations) : []), [trace]);
  const span = useMemo(() => (trace?.observations.length ? spanOf(trace.observations) : { start: 0, end: 0 }), [trace]);

  if (loaded.error?.status === 404) {
    return (
      <div className="explorer">
        <p>
          <a href={tracesHref()}>← All traces</a>
        </p>
        <EmptyState title="No such trace">
          There is no trace <code>{traceId}</code> in this project. It may not have been ingested yet, or it belongs to another project.
        </EmptyState>
      </div>
    );
  }
  const ordered = flatten(tree);
  // the observation the URL names; else the first generation, the call people come to see
  const selected: Observation | undefined = observationId
    ? ordered.find((o) => o.id === observationId)
    : (ordered.find((o) => o.type === 'GENERATION') ?? ordered[0]);

  return (
    <div className="explorer trace-detail">
      <p>
        <a href={tracesHref()}>← All traces</a>
      </p>
      <ErrorBanner problem={loaded.error} title="Trace" />
      {loaded.loading && !trace ? <p className="muted">Loading…</p> : null}
      {trace ? (
        <>
          <TraceHeader trace={trace} />
          <div className="trace-body">
            <section className="card" aria-labelledby="trace-tree">
              <h2 id="trace-tree">Observations ({trace.observations.length})</h2>
              {tree.length ? (
                <ObservationTree roots={tree} span={span} traceId={trace.id} selectedId={selected?.id} />
              ) : (
                <p className="muted">This trace has no observations.</p>
              )}
            </section>
            {selected ? (
              <ObservationPanel o={selected} />
            ) : observationId ? (
              <div className="card">
                <EmptyState title="No such observation in this trace">
                  <code>{observationId}</code> is not one of this trace's observations.
                </EmptyState>
              </div>
            ) : null}
          </div>
          <TraceScores traceId={trace.id} />
        </>
      ) : null}
    </div>
  );
}

function TraceHeader({ trace }: { trace: TraceWithObservations }) {
  return (
    <section className="card" aria-labelledby="trace-title">
      <h2 id="trace-title">{trace.name || <code>{trace.id}</code>}</h2>
      <dl className="facts trace-facts">
        <dt>Trace id</dt>
        <dd>
          <code>{trace.id}</code>
        </dd>
        <dt>User</dt>
        <dd>{trace.userId ? <a href={tracesHref({ user: trace.userId })}>{trace.userId}</a> : '—'}</dd>
        <dt>Session</dt>
        <dd>{trace.sessionId ? <a href={tracesHref({ session: trace.sessionId })}>{trace.sessionId}</a> : '—'}</dd>
        <dt>Tags</dt>
        <dd>
          {trace.tags.length
            ? trace.tags.map((t) => (
                <a key={t} className="badge tag" href={tracesHref({ tag: t })}>
                  {t}
                </a>
              ))
            : '—'}
        </dd>
        <dt>Environment</dt>
        <dd>{trace.environment}</dd>
        <dt>Time</dt>
        <dd>{formatTime(trace.timestamp)}</dd>
        <dt>Total cost</dt>
        <dd>
          {formatCost(trace.totalCost)}
          <UnpricedNote observations={trace.observations} />
        </dd>
        <dt>Latency</dt>
        <dd>{formatSeconds(trace.latency)}</dd>
        {trace.release ? (
          <>
            <dt>Release</dt>
            <dd>{trace.release}</dd>
          </>
        ) : null}
        {trace.version ? (
          <>
            <dt>Version</dt>
            <dd>{trace.version}</dd>
          </>
        ) : null}
      </dl>
      {trace.input !== null && trace.input !== undefined ? <JsonView label="Trace input" value={trace.input} open={false} /> : null}
      {trace.output !== null && trace.output !== undefined ? <JsonView label="Trace output" value={trace.output} open={false} /> : null}
    </section>
  );
}

/** the total leaves out what had no price: say how much of the trace that is */
function UnpricedNote({ observations }: { observations: Observation[] }) {
  const unpriced = observations.filter((o) => o.costStatus === 'unpriced').length;
  const partial = observations.filter((o) => o.costStatus === 'partial').length;
  const parts = [
    unpriced ? `${unpriced} observation${unpriced === 1 ? '' : 's'} without a price` : '',
    partial ? `${partial} partly priced` : '',
  ].filter(Boolean);
  return parts.length ? <span className="warn-text"> · {parts.join(', ')}</span> : null;
}
