// What a producer's input count means, producer by producer, measured with the real packages
// (instrumentations/test) against a provider whose bill is known; producers not measured there
// (OpenLLMetry's Python twin, say) follow the default until they are. OpenAI reports prompt tokens
// that include cached ones; Anthropic's API reports input_tokens that exclude cache reads and
// writes. Most instrumentations of Anthropic re-add the cache to their input count (1,300 for
// 1,000 uncached + 200 read + 100 written), so Tally subtracts the cache buckets from it, as from
// OpenAI's; the rows below that say otherwise pass Anthropic's exclusive count through, and
// subtracting again took the cache off twice ($0.002345 for a $0.002645 call).

export interface SemanticsRow {
  /** the instrumentation scope name */
  scope: string;
  provider: string;
  /** input already excludes the cache buckets: do not subtract them */
  inputExcludesCache: boolean;
  why: string;
}

export const USAGE_SEMANTICS: readonly SemanticsRow[] = [
  {
    scope: '@traceloop/instrumentation-anthropic',
    provider: 'Anthropic',
    inputExcludesCache: true,
    why: "OpenLLMetry (JS) passes Anthropic's input_tokens through: 1,000 with 200 read and 100 written beside it, total_tokens 1,300 = input + output",
  },
  {
    scope: 'com.anthropic.sdk.typescript',
    provider: 'Anthropic',
    inputExcludesCache: false,
    why: "the Anthropic SDK's own spans send input 1,300: input_tokens plus cache reads and writes",
  },
  {
    scope: '@arizeai/openinference-instrumentation-anthropic',
    provider: 'Anthropic',
    inputExcludesCache: false,
    why: 'OpenInference sends llm.token_count.prompt 1,300, its prompt_details beside it',
  },
  {
    scope: 'ai',
    provider: 'any, through the AI SDK',
    inputExcludesCache: false,
    why: 'the AI SDK sends inputTokens 1,300 for Anthropic and 1,200 for OpenAI, with noCacheTokens 1,000 beside them',
  },
  {
    scope: 'gen_ai',
    provider: 'any, through the AI SDK 7 GenAI integration',
    inputExcludesCache: false,
    why: 'gen_ai.usage.input_tokens 1,300 for Anthropic, as the semantic conventions define it (cache included)',
  },
  {
    scope: '@traceloop/instrumentation-openai',
    provider: 'OpenAI',
    inputExcludesCache: false,
    why: "OpenAI's prompt_tokens, which include cached tokens (no cache count is sent)",
  },
];

const BY_SCOPE = new Map(USAGE_SEMANTICS.map((r) => [r.scope, r]));

/** whether a span's input count already excludes its cache buckets (default: it includes them, as the conventions say) */
export const inputExcludesCache = (scope: string | undefined): boolean =>
  scope ? (BY_SCOPE.get(scope)?.inputExcludesCache ?? false) : false;
