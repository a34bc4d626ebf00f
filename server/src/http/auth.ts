// Basic auth with a project's public/secret key pair, as Langfuse clients send it.
// The key is found by its secret, and the public key sent beside it must be that key's own.
// Langfuse accepts a mismatched public key with a server-side warning; Tally refuses it
// (401), so keys pasted from two projects never write into the wrong one unnoticed.
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Logger } from '../logger.ts';
import { hashSecret, projectForPublicKey, projectForSecret } from '../store/projects.ts';
import { unauthorized } from './errors.ts';
import { NO_AUTHORIZATION_HEADER } from '../spec/issues.ts';

const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 10_000;
const cache = new Map<string, { projectId: string; publicKey: string; until: number }>();

// Tally's words (Langfuse says "Confirm that you've configured the correct host." for all of them):
// each names what was wrong and what a right request looks like, never echoing a key
export const AUTH_MESSAGES = {
  missing: NO_AUTHORIZATION_HEADER,
  scheme: 'Invalid authorization header: expected `Basic <base64 of publicKey:secretKey>`.',
  undecodable: 'Invalid authorization header: the Basic value is not the base64 of `publicKey:secretKey`.',
  unknown:
    'Invalid credentials: no project has this secret key. Check that both keys are copied whole and that they were created on this Tally server.',
  swapped:
    'Invalid credentials: the password is a public key, not a secret key. Send the public key (pk-…) as the user name and the secret key (sk-…) as the password: are the two swapped?',
  unknownPublic:
    'Invalid public key: no project has this public key. Check that it is copied whole and that it was created on this Tally server.',
} as const;

export const MISMATCHED_PUBLIC_KEY =
  'Invalid credentials: the public key does not belong to the secret key. Confirm that both keys come from the same project.';

/** Basic credentials split at the first colon (RFC 7617): the password may itself hold colons. */
export function parseBasic(header: string): { publicKey: string; secretKey: string } | null {
  const decoded = Buffer.from(header.slice(header.indexOf(' ') + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return null;
  return { publicKey: decoded.slice(0, colon), secretKey: decoded.slice(colon + 1) };
}

/** the scheme in lower case: HTTP auth schemes are case-insensitive (RFC 9110 11.1), `basic …` is Basic */
export function authScheme(header: string): string {
  const space = header.indexOf(' ');
  return (space < 0 ? header : header.slice(0, space)).toLowerCase();
}

/**
 * `bearerPublicKey`: the operation also takes the project's public key alone as a Bearer token
 * (Langfuse's `scores` access level: score creation only, for browsers that must not hold the secret).
 */
export async function authenticate(
  header: string | undefined,
  em: SqlEntityManager,
  log: Logger,
  opts: { bearerPublicKey?: boolean } = {},
): Promise<string> {
  if (!header) throw unauthorized(AUTH_MESSAGES.missing);
  const scheme = authScheme(header);
  if (scheme !== 'basic') {
    if (scheme === 'bearer') {
      if (!opts.bearerPublicKey) throw new AuthzError();
      const projectId = await projectForPublicKey(em, header.slice(header.indexOf(' ') + 1).trim());
      if (!projectId) throw unauthorized(AUTH_MESSAGES.unknownPublic);
      return projectId;
    }
    throw unauthorized(AUTH_MESSAGES.scheme);
  }
  const creds = parseBasic(header);
  if (!creds) throw unauthorized(AUTH_MESSAGES.undecodable);

  const now = Date.now();
  const cacheKey = hashSecret(creds.secretKey); // the plaintext secret is never kept
  let hit = cache.get(cacheKey);
  if (!hit || hit.until < now) {
    const found = await projectForSecret(em, creds.secretKey);
    if (!found) throw unauthorized((await looksSwapped(em, creds)) ? AUTH_MESSAGES.swapped : AUTH_MESSAGES.unknown);
    hit = { ...found, until: now + CACHE_TTL_MS };
    // a flood of distinct valid secrets is unlikely, but the cache must not grow without bound
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(cacheKey, hit);
  }
  if (hit.publicKey !== creds.publicKey) {
    log.warn({ projectId: hit.projectId }, 'refused: public key does not belong to the secret key');
    throw unauthorized(MISMATCHED_PUBLIC_KEY);
  }
  return hit.projectId;
}

/**
 * a pair whose secret is unknown: swapped if the password is shaped as a public key and the user
 * name as a secret, or the password is some project's public key (keys of any shape can be
 * configured, so the lookup decides when the prefixes do not)
 */
async function looksSwapped(em: SqlEntityManager, creds: { publicKey: string; secretKey: string }): Promise<boolean> {
  if (creds.secretKey.startsWith('pk-') && creds.publicKey.startsWith('sk-')) return true;
  // only what could be a stored public key is looked up: text PostgreSQL cannot hold (a NUL) or
  // far longer than any key is not one, and must not turn a 401 into a 500
  if (creds.secretKey.length > 512 || creds.secretKey.includes('\u0000')) return false;
  return (await projectForPublicKey(em, creds.secretKey)) !== null;
}

/** the public key of an Authorization header that authenticated: Basic's user, or a Bearer key */
export function publicKeyOf(header: string | undefined): string | null {
  if (!header) return null;
  if (authScheme(header) === 'bearer') return header.slice(header.indexOf(' ') + 1).trim();
  return parseBasic(header)?.publicKey ?? null;
}

/** A Bearer public key authenticates only score ingestion; elsewhere it is a 403. */
export class AuthzError extends Error {}
