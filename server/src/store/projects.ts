// Projects and their API keys. Secret keys are returned once, at creation, and stored
// only as a SHA-256 hash.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { ApiKey, Project } from '../db/entities.ts';
import { newId } from '../db/ids.ts';

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
const displaySecret = (secret: string) => `${secret.slice(0, 6)}...${secret.slice(-4)}`;

export interface KeyPair {
  projectId: string;
  publicKey: string;
  secretKey: string;
}

export function generateKeyPair(): { publicKey: string; secretKey: string } {
  return { publicKey: `pk-lf-${randomUUID()}`, secretKey: `sk-lf-${randomUUID()}-${randomBytes(8).toString('hex')}` };
}

export async function createProject(em: SqlEntityManager, name: string): Promise<string> {
  const id = newId();
  em.create(Project, { id, name, createdAt: new Date() });
  await em.flush();
  return id;
}

export async function addKeyPair(
  em: SqlEntityManager,
  projectId: string,
  keys: { publicKey: string; secretKey: string } = generateKeyPair(),
  note: string | null = null,
): Promise<KeyPair> {
  em.create(ApiKey, {
    id: newId(),
    projectId,
    publicKey: keys.publicKey,
    secretHash: hashSecret(keys.secretKey),
    displaySecretKey: displaySecret(keys.secretKey),
    note,
    createdAt: new Date(),
  });
  await em.flush();
  return { projectId, ...keys };
}

/** The project a secret key belongs to, or null. Lookup is by the secret's hash. */
export async function projectForSecret(em: SqlEntityManager, secretKey: string): Promise<{ projectId: string; publicKey: string } | null> {
  const key = await em.findOne(ApiKey, { secretHash: hashSecret(secretKey) }, { fields: ['projectId', 'publicKey'] });
  return key ? { projectId: key.projectId, publicKey: key.publicKey } : null;
}

/** The project a public key belongs to, or null (Bearer public-key auth of score creation). */
export async function projectForPublicKey(em: SqlEntityManager, publicKey: string): Promise<string | null> {
  const key = await em.findOne(ApiKey, { publicKey }, { fields: ['projectId'] });
  return key ? key.projectId : null;
}

export async function projectCount(em: SqlEntityManager): Promise<number> {
  return em.count(Project, {});
}

export async function keyExists(em: SqlEntityManager, publicKey: string): Promise<boolean> {
  return (await em.count(ApiKey, { publicKey })) > 0;
}

export async function listProjects(em: SqlEntityManager) {
  const projects = await em.find(Project, {}, { orderBy: { createdAt: 'asc' } });
  const keys = await em.find(ApiKey, {}, { orderBy: { createdAt: 'asc' } });
  return projects.map((p) => ({
    id: p.id,
    name: p.name,
    keys: keys.filter((k) => k.projectId === p.id).map((k) => ({ publicKey: k.publicKey, secretKey: k.displaySecretKey })),
  }));
}
