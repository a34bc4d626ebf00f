// The per-process dependencies (`Services`): built once by server.ts, handed to every handler,
// to ingestion, to the LLM calls and to the background work.
import type { Keyring } from './domain/llm-connections/secret-box.ts';
import type { AllowList } from './domain/llm/egress.ts';
import type { GrowthAnalyzer } from './store/planner-stats.ts';
import type { EvaluationRulesCache } from './caches/evaluation-rules-cache.ts';
import type { ModelCatalog } from './caches/model-catalog.ts';
import type { TokenizerPool } from './threads/tokenizer-pool.ts';

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
  /** evaluation rules as ingestion matches them, and the wake-up of this process's evaluation workers */
  evaluation?: { rules: EvaluationRulesCache; jobsEnqueued: () => void; batchApplied: () => void };
  /** with ClickHouse configured: how far its copy is behind, and the exporter's wake-up after a batch */
  analytics?: { lag: () => Promise<{ lagRows: number; lagSeconds: number }>; changed: () => void };
}
