import { describe, expect, it } from 'vitest';
import { countTokens, inferUsage, type TokenizerRef } from '../../src/domain/tokenizers/index.ts';
import fc from 'fast-check';
import { cannotBeJson, parseJsonPrioritised } from '../../src/domain/tokenizers/json.ts';

// Expected counts were cross-checked with the WASM `tiktoken` package (the library Langfuse uses)
// and with @anthropic-ai/tokenizer's own countTokens().
const openai = (tokenizerModel: string, extra: Record<string, unknown> = { tokensPerMessage: 3, tokensPerName: 1 }): TokenizerRef => ({
  tokenizerId: 'openai',
  tokenizerConfig: { tokenizerModel, ...extra },
});
const gpt4o = openai('gpt-4o');
const gpt4 = openai('gpt-4');
const claude: TokenizerRef = { tokenizerId: 'claude', tokenizerConfig: null };

const JAPANESE = '日本語のテキスト'; // o200k_base has the bigger CJK vocabulary: 6 tokens vs 8

describe('countTokens: openai', () => {
  it('counts plain strings per encoding', () => {
    expect(countTokens(gpt4o, 'hello world')).toBe(2);
    expect(countTokens(gpt4, 'hello world')).toBe(2);
    expect(countTokens(gpt4o, JAPANESE)).toBe(6);
    expect(countTokens(gpt4, JAPANESE)).toBe(8);
  });

  it('picks the vocabulary by model family (tokenizer-vocabulary.test.ts has the full table)', () => {
    for (const m of ['gpt-4o-mini', 'gpt-4o-2024-08-06', 'chatgpt-4o-latest', 'gpt-4.1', 'gpt-5', 'o1'])
      expect(countTokens(openai(m), JAPANESE), m).toBe(6);
    for (const m of ['gpt-4', 'gpt-4-turbo', 'gpt-3.5-turbo', 'text-embedding-ada-002'])
      expect(countTokens(openai(m), JAPANESE), m).toBe(8);
  });

  it('counts special tokens as one token instead of throwing', () => {
    expect(countTokens(gpt4o, '<|endoftext|>')).toBe(1);
    expect(countTokens(gpt4, '<|endoftext|>')).toBe(1);
  });

  it('applies the chat formula to a message array', () => {
    const messages = [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', name: 'Alice', content: 'Hello!' },
    ];
    // message 1: 3 (per message) + "system" 1 + "You are a helpful assistant." 6           = 10
    // message 2: 3 (per message) + "user" 1 + "Alice" 1 + 1 (per name) + "Hello!" 2         =  8
    // reply priming                                                                          =  3
    expect(countTokens(gpt4o, JSON.stringify(messages))).toBe(21);
    expect(countTokens(gpt4o, messages)).toBe(21);
    expect(countTokens(openai('gpt-4o', { tokensPerMessage: 4, tokensPerName: -1 }), messages)).toBe(21 + 2 - 2);
  });

  it('adds tokensPerName for an empty name and counts tool calls as JSON', () => {
    // 3 + "user" 1 + "Hello!" 2 + 1 (name key present, empty value not encoded) + 3
    expect(countTokens(gpt4o, [{ role: 'user', name: '', content: 'Hello!' }])).toBe(10);
    const toolCalls = [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }];
    const n = countTokens(gpt4o, JSON.stringify(toolCalls))!;
    // 3 + "assistant" 1 + empty content 0 + tool_calls n + 3; unknown keys count nothing
    expect(countTokens(gpt4o, [{ role: 'assistant', content: '', tool_calls: toolCalls, refusal: 'no' }])).toBe(7 + n);
  });

  it('counts "[]" as 3 (an empty chat) but an empty array, null or undefined as nothing', () => {
    expect(countTokens(gpt4o, '[]')).toBe(3);
    expect(countTokens(gpt4o, [])).toBeUndefined();
    expect(countTokens(gpt4o, null)).toBeUndefined();
    expect(countTokens(gpt4o, undefined)).toBeUndefined();
  });

  it('stringifies multimodal messages instead of using the chat formula', () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe this image' },
          { type: 'image_url', image_url: { url: 'https://x.y/z.png' } },
        ],
      },
    ];
    expect(countTokens(gpt4o, JSON.stringify(messages))).toBe(38);
    expect(countTokens(gpt4, messages)).toBe(37);
    expect(countTokens(openai('gpt-4o', {}), messages)).toBe(38); // no tpm/tpn needed off the chat path
  });

  it('is undefined for a chat array when tokensPerMessage/tokensPerName are missing', () => {
    const messages = [{ role: 'user', content: 'Hello!' }];
    expect(countTokens(openai('gpt-4o', {}), messages)).toBeUndefined();
    expect(countTokens(openai('gpt-4o', { tokensPerMessage: 3 }), JSON.stringify(messages))).toBeUndefined();
    expect(countTokens(openai('gpt-4o', {}), 'Hello!')).toBe(2);
  });

  it('re-stringifies parsed JSON compactly, as Langfuse counts the parsed value', () => {
    expect(countTokens(gpt4o, '{"a": 1.0, "b": [1, 2]}')).toBe(countTokens(gpt4o, '{"a":1,"b":[1,2]}'));
    expect(countTokens(gpt4o, '{"a": 1.0, "b": [1, 2]}')).toBe(11); // the raw text is 17
    expect(countTokens(gpt4o, '"quoted"')).toBe(1); // a JSON string literal counts its content (raw: 3)
    expect(countTokens(gpt4o, { a: 1 })).toBe(countTokens(gpt4o, '{"a":1}'));
    expect(countTokens(gpt4o, 'not json {')).toBe(3);
  });

  it('is undefined without a usable tokenizer', () => {
    expect(countTokens({ tokenizerId: 'openai', tokenizerConfig: {} }, 'hi')).toBeUndefined();
    expect(countTokens({ tokenizerId: 'openai', tokenizerConfig: null }, 'hi')).toBeUndefined();
    expect(countTokens({ tokenizerId: 'llama', tokenizerConfig: null }, 'hi')).toBeUndefined();
    expect(countTokens({ tokenizerId: null, tokenizerConfig: null }, 'hi')).toBeUndefined();
  });
});

describe('countTokens: claude', () => {
  it('counts the text as is, with the legacy Claude vocabulary', () => {
    expect(countTokens(claude, 'hello world')).toBe(2);
    expect(countTokens(claude, 'hello world!')).toBe(3); // the package's own test
    expect(countTokens(claude, '<EOT>')).toBe(1); // its special token is allowed
    expect(countTokens(claude, '™')).toBe(1); // NFKC-normalised first, like countTokens()
    expect(countTokens(claude, '<|endoftext|>')).toBe(7); // not special in this vocabulary
    expect(countTokens(claude, '[]')).toBe(1); // no JSON parsing, no chat formula
  });

  it('stringifies non-strings', () => {
    expect(countTokens(claude, { a: 1 })).toBe(countTokens(claude, '{"a":1}'));
    expect(countTokens(claude, { a: 1 })).toBe(5);
    expect(countTokens(claude, [])).toBeUndefined();
  });
});

describe('inferUsage', () => {
  it('adds total only when a side is non-zero', () => {
    expect(inferUsage(gpt4o, '', '')).toEqual({ input: 0, output: 0 });
    expect(inferUsage(gpt4o, '', 'hello world')).toEqual({ input: 0, output: 2, total: 2 });
    expect(inferUsage(gpt4o, 'hello world', 'hello world')).toEqual({ input: 2, output: 2, total: 4 });
  });

  it('leaves out a side that cannot be counted', () => {
    expect(inferUsage(gpt4o, 'hello world', null)).toEqual({ input: 2, total: 2 });
    expect(inferUsage(claude, undefined, JAPANESE)).toEqual({ output: 8, total: 8 });
    expect(inferUsage(gpt4o, [], '')).toEqual({ output: 0 });
  });

  it('is undefined when neither side can be counted', () => {
    expect(inferUsage(gpt4o, null, undefined)).toBeUndefined();
    expect(inferUsage({ tokenizerId: 'llama', tokenizerConfig: null }, 'a', 'b')).toBeUndefined();
  });
});

describe('parseJsonPrioritised', () => {
  it('keeps numbers a double cannot hold as their source text', () => {
    expect(parseJsonPrioritised('{"id": 12345678901234567890, "x": 1.50}')).toEqual({ id: '12345678901234567890', x: 1.5 });
    expect(parseJsonPrioritised('[0.1, -0, 1e3]')).toEqual([0.1, -0, 1000]);
  });

  it('returns text that is not JSON unchanged', () => {
    expect(parseJsonPrioritised('hello')).toBe('hello');
    expect(parseJsonPrioritised('')).toBe('');
    expect(parseJsonPrioritised(' \n true \t')).toBe(true);
    expect(parseJsonPrioritised('nullable')).toBe('nullable');
    expect(parseJsonPrioritised('\u00a0[1]')).toBe('\u00a0[1]'); // NBSP is not JSON whitespace
  });

  it('skips JSON.parse only for text JSON.parse would refuse (generated text and JSON)', () => {
    const pieces = fc.constantFrom(
      ' ',
      '\t',
      '\n',
      '\r',
      '\u00a0',
      '\u2028',
      'true',
      'false',
      'null',
      'the',
      'nul',
      'tru',
      'x',
      '{',
      '}',
      '[',
      ']',
      '"',
      ':',
      ',',
      '-',
      '0',
      '7',
      '.',
      'e',
      'é',
      '日',
    );
    const text = fc.oneof(
      fc.array(pieces, { maxLength: 8 }).map((p) => p.join('')),
      fc.json(),
      fc.string(),
    );
    let skipped = 0,
      parsed = 0;
    fc.assert(
      fc.property(text, (t: string) => {
        let parses = true;
        try {
          JSON.parse(t);
        } catch {
          parses = false;
        }
        if (cannotBeJson(t)) {
          skipped++;
          expect(parses, JSON.stringify(t)).toBe(false);
        } else if (parses) parsed++;
      }),
      { numRuns: 30_000, seed: 5 },
    );
    expect(skipped).toBeGreaterThan(1_000);
    expect(parsed).toBeGreaterThan(1_000);
  });
});
