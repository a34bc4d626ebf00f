// OAuth access tokens for Google Cloud (Vertex AI). A service-account key is exchanged for a
// token by signing the JWT assertion here (RS256, node:crypto) and POSTing it to the key's
// token_uri through egressFetch: the key is user-supplied, so its token_uri could point anywhere,
// and google-auth-library's JWT client would connect there without the egress check. Application
// Default Credentials (VERTEXAI_DEFAULT_CREDENTIALS) go through google-auth-library: they are the
// operator's own credentials (metadata server, gcloud files), not something a user chose, and the
// metadata server's link-local address would be refused by any egress policy.
import { createHash, createSign } from 'node:crypto';
import { GoogleAuth } from 'google-auth-library';
import { causeChain, classifyHttpError, egressRefusal, LlmError } from '../domain/llm/call.ts';
import type { AllowList } from '../domain/llm/egress.ts';
import { VERTEXAI_DEFAULT_CREDENTIALS } from '../domain/llm-connections/validate.ts';
import { egressFetch } from '../egress/egress-fetch.ts';

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
// a token is renewed this long before Google says it expires, so a call never starts with one
// that lapses in flight
const EXPIRY_MARGIN_MS = 5 * 60_000;
const CACHE_LIMIT = 500;

export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  project_id: string;
  token_uri: string;
}

export interface GoogleToken {
  accessToken: string;
  /** the project the credentials belong to; null when ADC does not say */
  projectId: string | null;
}

/** the key's fields the adapter needs; an LlmError auth_invalid (message without any key material) otherwise */
export function parseServiceAccountKey(secretKey: string): ServiceAccountKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretKey);
  } catch {
    throw new LlmError('auth_invalid', 'the Vertex AI secret key is not a service-account key JSON');
  }
  const k = (parsed ?? {}) as Record<string, unknown>;
  const missing = ['client_email', 'private_key', 'project_id'].filter((f) => typeof k[f] !== 'string' || !k[f]);
  if (missing.length) throw new LlmError('auth_invalid', `the service-account key lacks ${missing.join(', ')}`);
  return {
    client_email: k.client_email as string,
    private_key: k.private_key as string,
    project_id: k.project_id as string,
    token_uri: typeof k.token_uri === 'string' && k.token_uri ? k.token_uri : DEFAULT_TOKEN_URI,
  };
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** the signed JWT bearer assertion for the token endpoint (RFC 7523) */
export function signAssertion(key: ServiceAccountKey, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = b64url(
    JSON.stringify({ iss: key.client_email, scope: CLOUD_PLATFORM_SCOPE, aud: key.token_uri, iat: nowSeconds, exp: nowSeconds + 3600 }),
  );
  let signature: Buffer;
  try {
    signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(key.private_key);
  } catch {
    throw new LlmError('auth_invalid', 'the service-account private key cannot sign (not a valid PEM RSA key)');
  }
  return `${header}.${claims}.${b64url(signature)}`;
}

const cache = new Map<string, { token: string; expiresAt: number }>();

/** forget every cached token (tests) */
export function clearGoogleTokenCache(): void {
  cache.clear();
}

/** a failed fetch (never an HTTP answer) as an LlmError; messages are redacted by the caller */
export function fetchFailure(err: unknown, what: string): LlmError {
  if (err instanceof LlmError) return err;
  const refused = egressRefusal(err);
  if (refused) return refused;
  const chain = causeChain(err);
  if (chain.some((e) => e.name === 'AbortError' || e.name === 'TimeoutError'))
    return new LlmError('timeout', `${what} did not answer in time`);
  return new LlmError('unreachable', `${what} is unreachable: ${String(chain.at(-1)?.message ?? err)}`);
}

async function serviceAccountToken(key: ServiceAccountKey, egress: AllowList, signal: AbortSignal): Promise<string> {
  const cacheKey = createHash('sha256').update(`${key.token_uri}\n${key.client_email}\n${key.private_key}`).digest('hex');
  const hit = cache.get(cacheKey);
  if (hit && hit.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return hit.token;
  const assertion = signAssertion(key);
  let res: Response;
  let text: string;
  try {
    res = await egressFetch(egress)(key.token_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      signal,
    });
    text = await res.text();
  } catch (err) {
    throw fetchFailure(err, 'the Google token endpoint');
  }
  if (!res.ok) {
    // OAuth answers a wrong or revoked key with 400 invalid_grant / 401 invalid_client
    const kind = /invalid_client|unauthorized_client/i.test(text) ? 'auth_invalid' : classifyHttpError(res.status, text);
    throw new LlmError(kind, `the Google token endpoint answered ${res.status}: ${text.slice(0, 500)}`, res.status);
  }
  let body: { access_token?: unknown; expires_in?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    body = {};
  }
  if (typeof body.access_token !== 'string' || !body.access_token)
    throw new LlmError('provider_error', 'the Google token endpoint answered without an access token');
  const ttl = typeof body.expires_in === 'number' ? body.expires_in : 3600;
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(cacheKey, { token: body.access_token, expiresAt: Date.now() + ttl * 1000 });
  return body.access_token;
}

let adc: GoogleAuth | null = null;

// google-auth-library caches and refreshes the ADC token itself
async function defaultCredentialsToken(): Promise<GoogleToken> {
  adc ??= new GoogleAuth({ scopes: CLOUD_PLATFORM_SCOPE });
  try {
    const accessToken = await adc.getAccessToken();
    if (!accessToken) throw new Error('no access token');
    const projectId = await adc.getProjectId().catch(() => null);
    return { accessToken, projectId };
  } catch (err) {
    throw new LlmError(
      'auth_invalid',
      `Default GCP credentials (ADC) gave no access token: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** an access token (and the project) for the connection's credentials */
export async function googleAccessToken(secretKey: string, egress: AllowList, signal: AbortSignal): Promise<GoogleToken> {
  if (secretKey === VERTEXAI_DEFAULT_CREDENTIALS) return defaultCredentialsToken();
  const key = parseServiceAccountKey(secretKey);
  return { accessToken: await serviceAccountToken(key, egress, signal), projectId: key.project_id };
}
