// Which usage-detail keys a dataset price applies to. Instrumentors name the same quantity
// differently (OpenAI SDK vs Anthropic SDK vs Gemini REST vs OTel conventions) and cost is
// looked up by exact key, so each price is repeated under every common spelling, as
// Langfuse's default model list does.

export interface KeyFlavour {
  /** Anthropic SDK names (input_tokens, output_tokens) and the 1h cache-write price */
  anthropic?: boolean;
  /** Gemini REST / Vertex names (promptTokenCount, ...) */
  gemini?: boolean;
  /** reasoning tokens are reported apart from output but billed at the output price */
  reasoning?: boolean;
  /** embeddings are priced on `total` only, so an `{input: n}` usage is charged once */
  embedding?: boolean;
}

const CACHE_READ = ['input_cached_tokens', 'input_cache_read', 'cache_read_input_tokens'];
const CACHE_WRITE = ['input_cache_creation', 'cache_creation_input_tokens', 'input_cache_creation_5m'];
const REASONING = ['output_reasoning_tokens', 'output_reasoning', 'reasoning_tokens'];

/** Usage keys for one genai-prices price key; [] for prices this service does not apply. */
export function usageKeysFor(priceKey: string, f: KeyFlavour): string[] {
  if (f.embedding) return priceKey === 'input_mtok' ? ['total'] : [];
  switch (priceKey) {
    case 'input_mtok':
      return ['input', ...(f.anthropic ? ['input_tokens'] : []), ...(f.gemini ? ['prompt_token_count', 'promptTokenCount'] : [])];
    case 'output_mtok':
      return [
        'output',
        ...(f.anthropic ? ['output_tokens'] : []),
        ...(f.gemini ? ['candidates_token_count', 'candidatesTokenCount'] : []),
        ...(f.reasoning ? REASONING : []),
        ...(f.reasoning && f.gemini ? ['thoughtsTokenCount', 'thoughts_token_count'] : []),
      ];
    case 'cache_read_mtok':
      return [...CACHE_READ, ...(f.gemini ? ['cached_content_token_count'] : [])];
    case 'cache_write_mtok':
      return CACHE_WRITE;
    case 'cache_write_1h_mtok':
      return ['input_cache_creation_1h'];
    case 'input_audio_mtok':
      return ['input_audio_tokens'];
    case 'output_audio_mtok':
      return ['output_audio_tokens'];
    case 'cache_audio_read_mtok':
      return ['input_cached_audio_tokens'];
    case 'input_image_mtok':
      return ['input_image_tokens'];
    case 'output_image_mtok':
      return ['output_image_tokens'];
    case 'cache_image_read_mtok':
      return ['input_cached_image_tokens'];
    case 'input_video_mtok':
      return ['input_video_tokens'];
    case 'output_video_mtok':
      return ['output_video_tokens'];
    default:
      // per-request and per-hour prices (web_searches_kcount, audio_hours, ...) have no
      // token usage key to hang on; leaving them out under-prices, never mis-prices
      return [];
  }
}
