// Every migration, in order. Listed explicitly (not globbed) so the same list runs on
// PostgreSQL and PGlite, from source, with no build step.
import { Migration20261122000001Init } from './Migration20261122000001Init.ts';
import { Migration20261122000002Ingestion } from './Migration20261122000002Ingestion.ts';
import { Migration20261122000003Revisions } from './Migration20261122000003Revisions.ts';
import { Migration20261122000004HotTablesWithoutForeignKeys } from './Migration20261122000004HotTablesWithoutForeignKeys.ts';
import { Migration20261122000005ModelRevisions } from './Migration20261122000005ModelRevisions.ts';
import { Migration20261122000006IngestedEventsByAge } from './Migration20261122000006IngestedEventsByAge.ts';
import { Migration20261122000007FieldEventTimes } from './Migration20261122000007FieldEventTimes.ts';
import { Migration20261122000008ObservationHourly } from './Migration20261122000008ObservationHourly.ts';
import { Migration20261122000009MetricsIndexes } from './Migration20261122000009MetricsIndexes.ts';
import { Migration20261122000010LlmConnections } from './Migration20261122000010LlmConnections.ts';
import { Migration20261122000011Scores } from './Migration20261122000011Scores.ts';
import { Migration20261122000012Evaluators } from './Migration20261122000012Evaluators.ts';
import { Migration20261122000013EvaluationJobs } from './Migration20261122000013EvaluationJobs.ts';
import { Migration20261122000014Lz4Payloads } from './Migration20261122000014Lz4Payloads.ts';
import { Migration20261122000015ObservationDaily } from './Migration20261122000015ObservationDaily.ts';
import { Migration20261125000016UsagePricedAs } from './Migration20261125000016UsagePricedAs.ts';
import { Migration20261125000017AnalyticsChanges } from './Migration20261125000017AnalyticsChanges.ts';
import { Migration20261127000018AnalyticsMoves } from './Migration20261127000018AnalyticsMoves.ts';
import { Migration20261127000019TraceListIndexes } from './Migration20261127000019TraceListIndexes.ts';
import { Migration20261127000020RepriceJobs } from './Migration20261127000020RepriceJobs.ts';
import { Migration20261127000021TraceCounts } from './Migration20261127000021TraceCounts.ts';
import { Migration20261127000022Alerts } from './Migration20261127000022Alerts.ts';
import { Migration20261127000023TraceListIndexesHashed } from './Migration20261127000023TraceListIndexesHashed.ts';
import { Migration20261129000024EvaluationJobsWithoutForeignKey } from './Migration20261129000024EvaluationJobsWithoutForeignKey.ts';
import { Migration20261129000025EvaluationIntake } from './Migration20261129000025EvaluationIntake.ts';

export const migrationsList = [
  { name: 'Migration20261122000001Init', class: Migration20261122000001Init },
  { name: 'Migration20261122000002Ingestion', class: Migration20261122000002Ingestion },
  { name: 'Migration20261122000003Revisions', class: Migration20261122000003Revisions },
  { name: 'Migration20261122000004HotTablesWithoutForeignKeys', class: Migration20261122000004HotTablesWithoutForeignKeys },
  { name: 'Migration20261122000005ModelRevisions', class: Migration20261122000005ModelRevisions },
  { name: 'Migration20261122000006IngestedEventsByAge', class: Migration20261122000006IngestedEventsByAge },
  { name: 'Migration20261122000007FieldEventTimes', class: Migration20261122000007FieldEventTimes },
  { name: 'Migration20261122000008ObservationHourly', class: Migration20261122000008ObservationHourly },
  { name: 'Migration20261122000009MetricsIndexes', class: Migration20261122000009MetricsIndexes },
  { name: 'Migration20261122000010LlmConnections', class: Migration20261122000010LlmConnections },
  { name: 'Migration20261122000011Scores', class: Migration20261122000011Scores },
  { name: 'Migration20261122000012Evaluators', class: Migration20261122000012Evaluators },
  { name: 'Migration20261122000013EvaluationJobs', class: Migration20261122000013EvaluationJobs },
  { name: 'Migration20261122000014Lz4Payloads', class: Migration20261122000014Lz4Payloads },
  { name: 'Migration20261122000015ObservationDaily', class: Migration20261122000015ObservationDaily },
  { name: 'Migration20261125000016UsagePricedAs', class: Migration20261125000016UsagePricedAs },
  { name: 'Migration20261125000017AnalyticsChanges', class: Migration20261125000017AnalyticsChanges },
  { name: 'Migration20261127000018AnalyticsMoves', class: Migration20261127000018AnalyticsMoves },
  { name: 'Migration20261127000019TraceListIndexes', class: Migration20261127000019TraceListIndexes },
  { name: 'Migration20261127000020RepriceJobs', class: Migration20261127000020RepriceJobs },
  { name: 'Migration20261127000021TraceCounts', class: Migration20261127000021TraceCounts },
  { name: 'Migration20261127000022Alerts', class: Migration20261127000022Alerts },
  { name: 'Migration20261127000023TraceListIndexesHashed', class: Migration20261127000023TraceListIndexesHashed },
  { name: 'Migration20261129000024EvaluationJobsWithoutForeignKey', class: Migration20261129000024EvaluationJobsWithoutForeignKey },
  { name: 'Migration20261129000025EvaluationIntake', class: Migration20261129000025EvaluationIntake },
];
