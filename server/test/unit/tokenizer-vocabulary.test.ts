// The OpenAI vocabulary follows the model family: o200k_base for gpt-4o, gpt-4.1, gpt-4.5, gpt-5 and
// later, the o-series and chatgpt-4o; cl100k_base for gpt-4, gpt-4-turbo, gpt-3.5 and the
// text-embedding models. Checked for every managed OpenAI model, read from the managed list.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { openaiEntries } from '../../src/domain/managed-models/families/openai.ts';
import { countTokens, encodingOf, openaiVocabulary, type TokenizerRef } from '../../src/domain/tokenizers/index.ts';

const require = createRequire(import.meta.url);
const { Tiktoken } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
const reference = (encoding: string, text: string) => new Tiktoken(require(`js-tiktoken/ranks/${encoding}`)).encode(text, 'all').length;

const openai = (tokenizerModel: string): TokenizerRef => ({
  tokenizerId: 'openai',
  tokenizerConfig: { tokenizerModel, tokensPerMessage: 3, tokensPerName: 1 },
});
const EXAMPLE = 'Привет, как дела? 你好世界 — naïve café';

/** The test's own statement of the family rule (independent of the code's regular expressions). */
function expected(modelName: string): 'o200k_base' | 'cl100k_base' | null {
  const name = modelName.replace(/^openai\//, '').replace(/^ft:([^:]*).*$/, '$1');
  const o200k = [
    'gpt-4o',
    'chatgpt-4o',
    'gpt-4.1',
    'gpt-4.5',
    'gpt-5',
    'gpt-6',
    'o1',
    'o3',
    'o4',
    'codex-mini',
    'gpt-image',
    'gpt-realtime',
    'gpt-audio',
    'gpt-transcribe',
    'gpt-oss',
    'gpt-chat',
    'computer-use',
  ];
  const cl100k = ['gpt-4', 'gpt-3.5', 'gpt-35', 'text-embedding-'];
  if (o200k.some((p) => name.startsWith(p))) return 'o200k_base';
  if (cl100k.some((p) => name.startsWith(p))) return 'cl100k_base';
  return null; // pre-cl100k models (ada, davinci, text-davinci-00x), whisper, moderation: no vocabulary of these two
}

const managed = openaiEntries(new Date());

describe('OpenAI vocabulary by model family', () => {
  it('counts the example with o200k_base for gpt-4.1 (13 tokens) and cl100k_base for gpt-4 (18), as js-tiktoken does', () => {
    expect(reference('o200k_base', EXAMPLE)).toBe(13);
    expect(reference('cl100k_base', EXAMPLE)).toBe(18);
    expect(countTokens(openai('gpt-4.1'), EXAMPLE)).toBe(13);
    expect(countTokens(openai('gpt-4'), EXAMPLE)).toBe(18);
  });

  it.each([
    ['gpt-4o', 'o200k_base'],
    ['gpt-4o-mini-2024-07-18', 'o200k_base'],
    ['chatgpt-4o-latest', 'o200k_base'],
    ['gpt-4.1', 'o200k_base'],
    ['gpt-4.1-nano', 'o200k_base'],
    ['gpt-4.5-preview', 'o200k_base'],
    ['gpt-5', 'o200k_base'],
    ['gpt-5.4-mini', 'o200k_base'],
    ['gpt-5.1-codex-mini', 'o200k_base'],
    ['gpt-6-luna', 'o200k_base'],
    ['gpt-7', 'o200k_base'],
    ['gpt-10-turbo', 'o200k_base'],
    ['o1', 'o200k_base'],
    ['o1-mini', 'o200k_base'],
    ['o3-pro', 'o200k_base'],
    ['o4-mini-2025-04-16', 'o200k_base'],
    ['openai/gpt-4.1', 'o200k_base'],
    ['OpenAI/GPT-4o', 'o200k_base'],
    ['ft:gpt-4o-mini-2024-07-18:acme::abc123', 'o200k_base'],
    ['ft:gpt-4.1:acme:run:1', 'o200k_base'],
    ['ft:gpt-3.5-turbo-0125:acme::x', 'cl100k_base'],
    ['ft:gpt-4-0613:acme::x', 'cl100k_base'],
    ['gpt-4', 'cl100k_base'],
    ['gpt-4-0613', 'cl100k_base'],
    ['gpt-4-32k', 'cl100k_base'],
    ['gpt-4-turbo', 'cl100k_base'],
    ['gpt-4-turbo-2024-04-09', 'cl100k_base'],
    ['gpt-3.5-turbo', 'cl100k_base'],
    ['gpt-3.5-turbo-instruct', 'cl100k_base'],
    ['gpt-35-turbo', 'cl100k_base'],
    ['text-embedding-ada-002', 'cl100k_base'],
    ['text-embedding-3-large', 'cl100k_base'],
  ])('%s → %s', (model, vocabulary) => {
    expect(openaiVocabulary(model)).toBe(vocabulary);
    expect(encodingOf(openai(model))).toBe(vocabulary);
  });

  it.each(managed.map((e) => [e.modelName, e] as const))(
    'managed %s: vocabulary of its name, no count without a tokenizer',
    (name, entry) => {
      const want = expected(name);
      if (want) expect(openaiVocabulary(name)).toBe(want);
      if (entry.tokenizerId === null) expect(countTokens({ tokenizerId: null, tokenizerConfig: null }, EXAMPLE)).toBeUndefined();
      else expect(want, `${name} has a tokenizer but no known vocabulary`).not.toBeNull();
    },
  );

  // families/openai.ts names each chat model as its own tokenizerModel (Langfuse's list says
  // "gpt-4" for every gpt-* but gpt-4o*, which counted gpt-4.1 and gpt-5 with cl100k_base)
  it('managed models with a tokenizer count with their family vocabulary', () => {
    const wrong = managed
      .filter((e) => e.tokenizerId === 'openai')
      .filter((e) => encodingOf({ tokenizerId: e.tokenizerId, tokenizerConfig: e.tokenizerConfig }) !== expected(e.modelName))
      .map((e) => e.modelName);
    expect(wrong).toEqual([]);
  });
});
