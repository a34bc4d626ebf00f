// Basic auth with a project's public/secret key pair, as Langfuse clients send it.
// The key is identified by its secret; a mismatching public key is tolerated (as
// Langfuse does) but logged.
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Logger } from '../logger.ts';
import { hashSecret, projectForSecret } from '../store/projects.ts';
import { unauthorized } from './errors.ts';

const CACHE_TTL_MS = 30_000;
const cache = new Map<string, { projectId: string; publicKey: string; until: number }>();

export async function authenticate(header: string | undefined, em: SqlEntityManager, log: Logger): Promise<string> {
  if (!header) throw unauthorized('No authorization header');
  if (!header.startsWith('Basic ')) {
    if (header.startsWith('Bearer ')) throw new AuthzError();
    throw unauthorized('Invalid authorization header');
  }
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const [publicKey, secretKey] = decoded.split(':');
  if (!publicKey || !secretKey) throw unauthorized("Invalid authorization header. Confirm that you've configured the correct host.");

  const now = Date.now();
  const cacheKey = hashSecret(secretKey); // the plaintext secret is never kept
  let hit = cache.get(cacheKey);
  if (!hit || hit.until < now) {
    const found = await projectForSecret(em, secretKey);
    if (!found) throw unauthorized("Invalid credentials. Confirm that you've configured the correct host.");
    hit = { ...found, until: now + CACHE_TTL_MS };
    cache.set(cacheKey, hit);
  }
  if (hit.publicKey !== publicKey) log.warn({ projectId: hit.projectId }, 'public key does not match the secret key; accepted by secret');
  return hit.projectId;
}

/** A Bearer public key authenticates only score ingestion; elsewhere it is a 403. */
export class AuthzError extends Error {}

