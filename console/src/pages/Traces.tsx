// The traces explorer: `#/traces?…` lists them, `#/traces/<id>` opens one (links.ts builds both).
import { useHashLocation } from '../hooks.ts';
import { filtersOf } from '../links.ts';
import { TraceDetail } from './explorer/TraceDetail.tsx';
import { TraceList } from './explorer/TraceList.tsx';
import './explorer/explorer.css';

export function Traces() {
  const { id, params } = useHashLocation();
  if (id) return <TraceDetail key={id} traceId={id} observationId={params.get('observation')} />;
  return <TraceList filters={filtersOf(params)} />;
}
