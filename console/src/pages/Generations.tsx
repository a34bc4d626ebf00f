// The generations explorer: `#/generations?…`, every LLM call with its usage and cost.
import { useHashLocation } from '../hooks.ts';
import { filtersOf } from '../links.ts';
import { GenerationList } from './explorer/GenerationList.tsx';
import './explorer/explorer.css';

export function Generations() {
  const { params } = useHashLocation();
  return <GenerationList filters={filtersOf(params)} />;
}
