// Long-lived collaborators handed to every handler.
import type { ModelCatalog } from './services/model-catalog.ts';
import type { TokenizerPool } from './workers/tokenizer-pool.ts';

export interface Services {
  version: string;
  models: ModelCatalog;
  tokenizers: TokenizerPool;
  /** called after a project's models change, so matching caches drop that project */
  modelsChanged(projectId: string): void;
}
