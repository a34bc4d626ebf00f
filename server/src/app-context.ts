// The per-process dependencies (`Services`): built once by server.ts, handed to every handler,
// to ingestion, to the LLM calls and to the background work.
import type { ObservationRecord, TraceRecord } from './domain/ingestion/types.ts';
import type { ScoreFilter, StoredScore } from './store/scores.ts';
import type { ObservationFilter } from './store/observations.ts';
import type { Keyring } from './domain/llm-connections/secret-box.ts';
import type { AllowList } from './domain/llm/egress.ts';
import type { GrowthAnalyzer } from './store/planner-stats.ts';
import type { EvaluationRulesCache } from './caches/evaluation-rules-cache.ts';
import type { ModelCatalog } from './caches/model-catalog.ts';
import type { TokenizerPool } from './threads/tokenizer-pool.ts';
import type { ClickHouseMetrics, MetricsStore } from './domain/metrics/index.ts';
import type { IngestionLoad } from './domain/ingestion/load.ts';

/** reads of what retention removed from PostgreSQL (analytics/reads.ts over ClickHouse) */
import type { TraceListFilter, TraceOrder, TraceTotals } from './domain/traces/list.ts';

export interface Archive {
  observations: (projectId: string, ids: string[]) => Promise<ObservationRecord[]>;
  observationsOfTrace: (projectId: string, traceId: string) => Promise<ObservationRecord[]>;
  traces: (projectId: string, ids: string[]) => Promise<TraceRecord[]>;
  score: (projectId: string, id: string) => Promise<StoredScore | null>;
  /** GET /observations over ClickHouse, for a window reaching past the retention */
  listObservations: (
    projectId: string,
    f: ObservationFilter,
    page: number,
    limit: number,
  ) => Promise<{ observations: ObservationRecord[]; total: number }>;
  /** GET /traces over ClickHouse, for a window reaching past the retention */
  listTraces: (
    projectId: string,
    f: TraceListFilter,
    order: TraceOrder,
    page: number,
    limit: number,
  ) => Promise<{ traces: TraceRecord[]; total: number }>;
  traceTotals: (projectId: string, traceIds: string[]) => Promise<Map<string, TraceTotals>>;
  traceScoreIds: (projectId: string, traceIds: string[]) => Promise<Map<string, string[]>>;
  /** the score lists (v1, v2) over ClickHouse, for a window reaching past the retention */
  listScores: (projectId: string, f: ScoreFilter, page: number, limit: number) => Promise<{ scores: StoredScore[]; total: number }>;
  /** TALLY_POSTGRES_RETENTION_DAYS */
  retentionDays: number;
}

export interface Services {
  version: string;
  models: ModelCatalog;
  tokenizers: TokenizerPool;
  /** keys for LLM connection secrets (secrets/encryption-keys.ts) */
  keyring: Keyring;
  /** where connection base URLs may point besides the public internet (domain/llm/egress.ts) */
  egress: AllowList;
  /** the longest one LLM provider call may take (TALLY_LLM_TIMEOUT_MS) */
  llmTimeoutMs: number;
  /** told the rows each committed ingestion batch wrote; analyses the tables as a new database fills (store/planner-stats.ts) */
  tableGrowth?: GrowthAnalyzer;
  /**
   * evaluation rules as ingestion matches them, the wake-up of this process's evaluation workers,
   * and ingestion's load (senders' batches under way), which the workers yield to
   */
  evaluation?: { rules: EvaluationRulesCache; jobsEnqueued: () => void; load: IngestionLoad };
  /** reprice jobs: the worker's wake-up when one is created */
  reprice?: { jobCreated: () => void };
  /** spend alerts: the shortest interval one may ask for (TALLY_ALERTS_MIN_INTERVAL_SECONDS) */
  alerts: { minIntervalSeconds: number };
  /** with ClickHouse configured: how far its copy is behind, and the exporter's wake-up after a batch */
  analytics?: {
    lag: () => Promise<{ lagRows: number; lagSeconds: number }>;
    changed: () => void;
    /** the metrics engine's store: metrics v2, v1 and daily are answered from ClickHouse (analytics/metrics.ts) */
    metrics?: MetricsStore<ClickHouseMetrics>;
    /** with TALLY_POSTGRES_RETENTION_DAYS: rows PostgreSQL no longer holds, read from ClickHouse */
    archive?: Archive;
  };
}
