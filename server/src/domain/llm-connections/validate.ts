// Adapter-specific rules of an upsert and the masked key. The spec has
// checked types and lengths already; these are the rules a schema cannot say.
import type { ValidationIssue as Issue } from '../../../../generated/client/types.gen.ts';
import { LlmAdapterValues } from '../../../../generated/enums.ts';

export const LLM_ADAPTERS = LlmAdapterValues;
export type LlmAdapter = (typeof LLM_ADAPTERS)[number];

export const BEDROCK_DEFAULT_CREDENTIALS = '__BEDROCK_DEFAULT_CREDENTIALS__';
export const VERTEXAI_DEFAULT_CREDENTIALS = '__VERTEXAI_DEFAULT_CREDENTIALS__';
export const DEFAULT_CREDENTIALS_NOT_BEDROCK = 'Default AWS credentials are only allowed for Bedrock in self-hosted deployments.';

type Config = Record<string, string | boolean>;

const custom = (path: string, message: string): Issue => ({ code: 'custom', path: [path], message });

function strictKeys(config: Config, allowed: string[]): string | null {
  const extra = Object.keys(config).find((k) => !allowed.includes(k));
  return extra === undefined ? null : `unrecognized key ${JSON.stringify(extra)}`;
}

function configIssue(adapter: LlmAdapter, config: Config | undefined): Issue | null {
  switch (adapter) {
    case 'bedrock': {
      if (config === undefined) return custom('config', 'Config is required for Bedrock adapter. Expected: { region: string }');
      const detail =
        config.region === undefined ? 'region is required' : typeof config.region !== 'string' ? 'region must be a string' : null;
      return detail ? custom('config', `Invalid Bedrock config: ${detail}. Expected: { region: string }`) : null;
    }
    case 'openai': {
      if (config === undefined) return null;
      const detail =
        strictKeys(config, ['useResponsesApi']) ??
        (config.useResponsesApi !== undefined && typeof config.useResponsesApi !== 'boolean' ? 'useResponsesApi must be a boolean' : null);
      return detail ? custom('config', `Invalid OpenAI config: ${detail}. Expected: { useResponsesApi: boolean }`) : null;
    }
    case 'google-vertex-ai': {
      if (config === undefined) return null;
      const detail =
        strictKeys(config, ['location']) ??
        (config.location !== undefined && typeof config.location !== 'string' ? 'location must be a string' : null);
      return detail ? custom('config', `Invalid VertexAI config: ${detail}. Expected: { location: string }`) : null;
    }
    default:
      if (config === undefined || Object.keys(config).length === 0) return null;
      return custom('config', `Config is not supported for ${adapter} adapter. Remove the config field.`);
  }
}

const nonEmptyString = (v: unknown) => typeof v === 'string' && v.length > 0;

function bedrockCredentialsValid(secretKey: string): boolean {
  if (secretKey === BEDROCK_DEFAULT_CREDENTIALS) return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretKey);
  } catch {
    return false;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return false;
  const keys = Object.keys(parsed).sort().join(',');
  const o = parsed as Record<string, unknown>;
  if (keys === 'accessKeyId,secretAccessKey') return nonEmptyString(o.accessKeyId) && nonEmptyString(o.secretAccessKey);
  if (keys === 'apiKey') return nonEmptyString(o.apiKey);
  return false;
}

// an HTTP header name (RFC 9110 token) and a value that cannot split the header block
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_HEADER_VALUE = /[\r\n\0]/;

export interface UpsertInput {
  adapter: LlmAdapter;
  /** undefined: the stored key is kept (checked when it was stored) */
  secretKey?: string;
  config?: Config;
  /** null: the stored value of that header is kept */
  extraHeaders?: Record<string, string | null>;
}

/** Issues in zod's shape (400 `Invalid request data`); [] when the request is acceptable. */
export function validateConnectionInput(input: UpsertInput): Issue[] {
  const issues: Issue[] = [];
  const c = configIssue(input.adapter, input.config);
  if (c) issues.push(c);
  if (input.adapter === 'bedrock' && input.secretKey !== undefined && !bedrockCredentialsValid(input.secretKey)) {
    issues.push(
      custom('secretKey', 'Invalid Bedrock credentials. Expected a JSON object with either {accessKeyId, secretAccessKey} or {apiKey}.'),
    );
  }
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(input.extraHeaders ?? {})) {
    if (!HEADER_NAME.test(name))
      issues.push({
        code: 'custom',
        path: ['extraHeaders', name],
        message: "Header names must be HTTP tokens (letters, digits and !#$%&'*+.^_`|~-)",
      });
    else if (seen.has(name.toLowerCase()))
      issues.push({ code: 'custom', path: ['extraHeaders', name], message: 'Header names must be unique, ignoring case' });
    if (value !== null && BAD_HEADER_VALUE.test(value))
      issues.push({ code: 'custom', path: ['extraHeaders', name], message: 'Header values must not hold CR, LF or NUL' });
    seen.add(name.toLowerCase());
  }
  return issues;
}

/** The masked key. A secret shorter than 8 characters is shown as "..." alone (Langfuse would show its last 4, i.e. most of it). */
export function displaySecretKey(secretKey: string): string {
  if (secretKey === BEDROCK_DEFAULT_CREDENTIALS) return 'Default AWS credentials';
  if (secretKey === VERTEXAI_DEFAULT_CREDENTIALS) return 'Default GCP credentials (ADC)';
  if (secretKey.endsWith('"}')) {
    const body = secretKey.slice(0, -2);
    return body.length < 8 ? '...' : `...${body.slice(-4)}`;
  }
  return secretKey.length < 8 ? '...' : `...${secretKey.slice(-4)}`;
}

/** `baseURL` as stored: null for null/""; otherwise an http(s) URL, or the reason it is refused. */
export function checkBaseUrl(value: string | null | undefined): { url: string | null } | { notAUrl: true } | { refused: string } {
  if (value === null || value === undefined || value === '') return { url: null };
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return { notAUrl: true };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { refused: 'only http and https URLs are allowed' };
  if (u.username || u.password) return { refused: 'credentials in the URL are not allowed; use extraHeaders' };
  return { url: value };
}
