// Spend alerts (issue 26): what an alert is, once validated. The HTTP shape lives in the spec; this
// is the domain's own form, which the evaluator (state.ts, query.ts) and the webhook (webhook.ts)
// read, its enums the spec's. The webhook secret is not part of it: it stays encrypted in the store
// and only signing (webhook.ts signature) is handed it.
import type {
  AlertCondition as WireCondition,
  AlertDeliveries,
  AlertGroup,
  AlertGroupBy,
  AlertRequest,
  AlertWebhookInput,
} from '../../../../generated/client/types.gen.ts';

export type AlertOperator = WireCondition['operator'];

export interface AlertCondition {
  operator: AlertOperator;
  /** crossing it (and not `alert`) is a warning */
  warning: number | null;
  alert: number;
}

/** a rolling window of the last N minutes, or the calendar month so far (UTC) */
export type AlertWindow = { kind: 'rolling'; minutes: number } | { kind: 'calendarMonth' };

/** what a group with no value in a window becomes: ok, as it was, or alerting */
export type NoDataPolicy = NonNullable<AlertRequest['noData']>;

export interface AlertDefinition {
  id: string;
  name: string;
  /** a metrics v2 query without its time range: one view, one metric, filters */
  query: {
    view: string;
    metric: { measure: string; aggregation: string };
    filters: Record<string, unknown>[];
  };
  /** fans the alert out per value of this dimension, the top `topN` values by the metric */
  groupBy: { field: NonNullable<AlertGroupBy>['field']; topN: number } | null;
  window: AlertWindow;
  condition: AlertCondition;
  /** compare the value with its own average over the 7 days before the window, as a ratio */
  baseline: boolean;
  noData: NoDataPolicy;
  intervalSeconds: number;
  webhook: { url: string; format: NonNullable<AlertWebhookInput['format']> };
  enabled: boolean;
}

export type AlertState = AlertGroup['state'];

/** a group's state and what it was measured at; the group is '' when the alert is not fanned out */
export interface GroupState {
  group: string;
  state: AlertState;
  /** the value the condition was applied to (a ratio in baseline mode); null: no data */
  value: number | null;
  /** when it entered this state */
  since: Date;
}

/** a change of state, told once: `resolved` is a return to ok */
export type AlertEvent = AlertDeliveries['data'][number]['event'];

export interface Transition {
  group: string;
  from: AlertState;
  to: AlertState;
  event: AlertEvent;
  value: number | null;
}
