// First-start work: the managed model list, and a project with keys to use.
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Config } from './config.ts';
import { buildManagedModels } from './domain/managed-models/index.ts';
import type { Logger } from './logger.ts';
import { syncManagedModels } from './store/managed-models-sync.ts';
import { addKeyPair, createProject, keyExists, projectCount, type KeyPair } from './store/projects.ts';

export async function loadManagedModels(em: SqlEntityManager, log: Logger) {
  const result = await syncManagedModels(em, buildManagedModels());
  log.info(result, 'managed models synced');
  return result;
}

/**
 * With TALLY_INIT_* keys: make sure that key pair exists (idempotent). Without them and
 * with an empty database: create a local project and return its keys, to print once.
 */
export async function ensureInitialProject(em: SqlEntityManager, config: Config, log: Logger): Promise<KeyPair | null> {
  if (config.initPublicKey && config.initSecretKey) {
    if (await keyExists(em, config.initPublicKey)) return null;
    const projectId = await createProject(em, 'Default project');
    await addKeyPair(em, projectId, { publicKey: config.initPublicKey, secretKey: config.initSecretKey }, 'from TALLY_INIT_*');
    log.info({ projectId, publicKey: config.initPublicKey }, 'created the project of TALLY_INIT_PUBLIC_KEY');
    return null;
  }
  if ((await projectCount(em)) > 0) return null;
  const projectId = await createProject(em, 'Local project');
  return addKeyPair(em, projectId, undefined, 'created on first start');
}
