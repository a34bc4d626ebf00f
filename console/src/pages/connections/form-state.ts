// The connection form's state and its translation into an upsert body. Pure functions, so the
// per-adapter rules (which fields exist, how Bedrock's secret is encoded) are tested directly.
import type { FieldErrors } from '../../api.ts';
import type { LlmAdapter, LlmConnection, UpsertLlmConnectionRequest } from '../../../../sdk/index.ts';

export const ADAPTERS: { value: LlmAdapter; label: string }[] = [
  { value: 'openai', label: 'OpenAI (or OpenAI-compatible)' },
  { value: 'azure', label: 'Azure OpenAI' },
  { value: 'anthropic', label: 'Anthropic' },
  { value: 'google-ai-studio', label: 'Google AI Studio' },
  { value: 'google-vertex-ai', label: 'Google Vertex AI' },
  { value: 'bedrock', label: 'Amazon Bedrock' },
];

/** The spec's sentinel for "use the server's AWS credential chain" (self-hosted only). */
export const BEDROCK_DEFAULT_CREDENTIALS = '__BEDROCK_DEFAULT_CREDENTIALS__';

export type BedrockAuth = 'accessKeys' | 'apiKey' | 'default';

export interface HeaderRow {
  name: string;
  value: string;
  /** the name the server has a stored value for (an edited connection's header): left blank, that value is kept */
  storedName?: string;
}

export interface FormState {
  provider: string;
  adapter: LlmAdapter;
  /** the key of every adapter but Bedrock (Vertex: the service-account JSON) */
  secretKey: string;
  bedrockAuth: BedrockAuth;
  accessKeyId: string;
  secretAccessKey: string;
  bedrockApiKey: string;
  region: string;
  useResponsesApi: boolean;
  location: string;
  baseURL: string;
  customModels: string[];
  withDefaultModels: boolean;
  headers: HeaderRow[];
}

export function emptyForm(): FormState {
  return {
    provider: '',
    adapter: 'openai',
    secretKey: '',
    bedrockAuth: 'accessKeys',
    accessKeyId: '',
    secretAccessKey: '',
    bedrockApiKey: '',
    region: '',
    useResponsesApi: false,
    location: '',
    baseURL: '',
    customModels: [],
    withDefaultModels: true,
    headers: [],
  };
}

/** A stored connection as an edit form: secrets and header values are never returned, so they start blank. */
export function formOf(c: LlmConnection): FormState {
  const config = c.config ?? {};
  return {
    ...emptyForm(),
    provider: c.provider,
    adapter: c.adapter,
    bedrockAuth: c.displaySecretKey === 'Default AWS credentials' ? 'default' : 'accessKeys',
    region: typeof config.region === 'string' ? config.region : '',
    useResponsesApi: config.useResponsesApi === true,
    location: typeof config.location === 'string' ? config.location : '',
    baseURL: c.baseURL ?? '',
    customModels: [...c.customModels],
    withDefaultModels: c.withDefaultModels,
    headers: c.extraHeaderKeys.map((name) => ({ name, value: '', storedName: name })),
  };
}

function secretOf(s: FormState): string {
  if (s.adapter !== 'bedrock') return s.secretKey;
  // the spec encodes Bedrock's credentials as JSON text in secretKey
  if (s.bedrockAuth === 'default') return BEDROCK_DEFAULT_CREDENTIALS;
  if (s.bedrockAuth === 'apiKey') return s.bedrockApiKey ? JSON.stringify({ apiKey: s.bedrockApiKey }) : '';
  return s.accessKeyId || s.secretAccessKey ? JSON.stringify({ accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey }) : '';
}

function configOf(s: FormState): Record<string, string | boolean> | undefined {
  switch (s.adapter) {
    case 'bedrock':
      return { region: s.region.trim() };
    case 'openai':
      return { useResponsesApi: s.useResponsesApi };
    case 'google-vertex-ai':
      return s.location.trim() ? { location: s.location.trim() } : {};
    default:
      return undefined;
  }
}

/**
 * The upsert body, or the problems found before sending it (keyed like the server's issue paths).
 * `storedAdapter`: the adapter of the connection being edited (null when creating). A blank key on
 * an edit that keeps the adapter is left out of the body, and the server keeps the stored key; a
 * new adapter needs its own key. Header values are never returned: a stored header left blank
 * (its name unchanged) is sent as null, which keeps the stored value.
 */
export function buildBody(s: FormState, storedAdapter: LlmAdapter | null): { body: UpsertLlmConnectionRequest } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (!s.provider.trim()) errors.provider = 'Name the connection (its provider name).';
  const secretKey = secretOf(s);
  const keepKey = storedAdapter === s.adapter && !secretKey;
  const keyNeeded = storedAdapter && storedAdapter !== s.adapter ? ` The stored key belongs to the ${storedAdapter} adapter.` : '';
  if (s.adapter === 'bedrock') {
    // one of the pair typed is not a key to keep: both are needed
    if (s.bedrockAuth === 'accessKeys' && !keepKey && (!s.accessKeyId || !s.secretAccessKey))
      errors.secretKey = `Enter both the access key id and the secret access key.${keyNeeded}`;
    if (s.bedrockAuth === 'apiKey' && !keepKey && !s.bedrockApiKey) errors.secretKey = `Enter the Bedrock API key.${keyNeeded}`;
    if (!s.region.trim()) errors.config = 'Enter the AWS region, e.g. us-east-1.';
  } else if (!secretKey && !keepKey) {
    errors.secretKey = `Enter the key.${keyNeeded}`;
  }
  if (s.adapter === 'azure' && !s.baseURL.trim())
    errors.baseURL = 'Azure needs the resource URL, e.g. https://<resource>.openai.azure.com/openai.';
  const extraHeaders: Record<string, string | null> = {};
  s.headers.forEach((h, i) => {
    const name = h.name.trim();
    if (!name) errors[`headers.${i}`] = 'Name the header or remove the row.';
    else if (!h.value && storedAdapter && h.storedName === name) extraHeaders[name] = null;
    else if (!h.value)
      errors[`headers.${i}`] =
        h.storedName !== undefined
          ? `Enter a value: the stored one belongs to "${h.storedName}", not "${name}".`
          : 'Enter the header value.';
    else extraHeaders[name] = h.value;
  });
  if (Object.keys(errors).length) return { errors };
  const body: UpsertLlmConnectionRequest = {
    provider: s.provider.trim(),
    adapter: s.adapter,
    ...(keepKey ? {} : { secretKey }),
    baseURL: s.baseURL.trim() || null,
    customModels: s.customModels,
    withDefaultModels: s.withDefaultModels,
    extraHeaders,
  };
  const config = configOf(s);
  if (config) body.config = config;
  return { body };
}
