// The views as the schema endpoint lists them, read from the same declarations the engine uses.
import { ALLOWED_FILTER_TYPES } from '../filters/check.ts';
import { GRANULARITIES } from './granularity.ts';
import { aggregationsFor, V2_VIEWS, VIEWS } from './views.ts';

export function metricsSchema() {
  return {
    views: V2_VIEWS.map((name) => {
      const v = VIEWS[name];
      return {
        name,
        timeColumn: v.timeColumn,
        dimensions: Object.entries(v.dimensions).map(([field, d]) => ({
          name: field,
          type: d.type,
          available: !d.unavailable,
          ...(d.unavailable ? { reason: d.unavailable } : {}),
          highCardinality: Boolean(d.highCardinality),
          hidden: Boolean(d.hidden),
          filterTypes: [...ALLOWED_FILTER_TYPES[d.type], 'null'],
        })),
        measures: Object.entries(v.measures).map(([field, m]) => ({
          name: field,
          type: m.type,
          available: !m.unavailable,
          ...(m.unavailable ? { reason: m.unavailable } : {}),
          aggregations: [...aggregationsFor(m)],
        })),
      };
    }),
    granularities: [...GRANULARITIES],
  };
}
