// The state of one observation as Tally keeps it: what was sent (merged over events) and
// what was derived from it (usage buckets, cost, pricing). Pure data, no I/O.
import type { FieldTimes } from './field-times.ts';

import type { CostStatus, ObservationType } from '../../../../generated/enums.ts';

export type { CostStatus, ObservationType };

export interface ObservationRecord {
  id: string;
  traceId: string | null;
  parentObservationId: string | null;
  type: ObservationType;
  name: string | null;
  environment: string;
  level: string;
  statusMessage: string | null;
  version: string | null;
  startTime: Date;
  endTime: Date | null;
  completionStartTime: Date | null;
  model: string | null;
  modelParameters: Record<string, unknown> | null;
  input: unknown;
  output: unknown;
  metadata: unknown;
  promptName: string | null;
  promptVersion: number | null;
  /** usage as provided, merged over events (a later non-empty map replaces the earlier one) */
  providedUsageDetails: Record<string, number> | null;
  providedCostDetails: Record<string, number> | null;
  // derived
  usageDetails: Record<string, number>;
  costDetails: Record<string, number>;
  inputUsage: number;
  outputUsage: number;
  totalUsage: number;
  inputCost: number | null;
  outputCost: number | null;
  totalCost: number | null;
  modelId: string | null;
  usagePricingTierId: string | null;
  usagePricingTierName: string | null;
  /** the applied tier's prices (USD per unit), kept so a later price change never rewrites history */
  pricesUsed: Record<string, number> | null;
  costStatus: CostStatus;
  unpricedUsageKeys: string[];
  /** buckets priced without a price of their own: usage key → the price key used (null: none) */
  usagePricedAs: Record<string, string> | null;
  // trace fields, copied for metrics grouping
  traceName: string | null;
  userId: string | null;
  sessionId: string | null;
  release: string | null;
  traceVersion: string | null;
  tags: string[];
  createdAt: Date;
  updatedAt: Date;
  /** row version for optimistic concurrency: 0 = not stored yet */
  revision: number;
  /** which event last set each field sent (merge.ts, field-times.ts) */
  fieldTimes: FieldTimes;
}

export interface TraceRecord {
  id: string;
  timestamp: Date;
  name: string | null;
  userId: string | null;
  sessionId: string | null;
  release: string | null;
  version: string | null;
  externalId: string | null;
  environment: string;
  tags: string[];
  public: boolean;
  input: unknown;
  output: unknown;
  metadata: unknown;
  createdAt: Date;
  updatedAt: Date;
  revision: number;
  /** which event last set each field sent (merge.ts, field-times.ts) */
  fieldTimes: FieldTimes;
}

export interface ScoreRecord {
  id: string;
  timestamp: Date;
  name: string;
  value: number | null;
  stringValue: string | null;
  dataType: 'NUMERIC' | 'CATEGORICAL' | 'BOOLEAN' | 'CORRECTION' | 'TEXT';
  source: string;
  traceId: string | null;
  observationId: string | null;
  sessionId: string | null;
  datasetRunId: string | null;
  configId: string | null;
  comment: string | null;
  metadata: unknown;
  environment: string;
}
