// OpenAI models (also what Azure OpenAI deployments report): Langfuse-style patterns
// `(?i)^(openai/)?(<names>)$` built from the dataset's exact names and prefixes.
import type { TokenizerConfig } from '../../models/types.ts';
import { escapeRegex } from '../../regex.ts';
import { ensureMatchesName, regexFragment, unique, type FamilyEntry } from '../family.ts';
import { matchClauses, pricesAsOf, sourceModels } from '../source.ts';

/** Dataset ids that are not the name OpenAI uses. */
const RENAMES: Record<string, string> = { 'gpt-3.5-0301': 'gpt-3.5-turbo-0301' };

const REASONING = /^(o\d|codex-mini|gpt-5|gpt-6|gpt-oss)/;

export function openaiEntries(asOf: Date): FamilyEntry[] {
  return sourceModels('openai').map((model) => {
    // ids such as "ft:gpt-3.5-turbo-" are prefixes; the name drops the dangling separator
    const modelName = RENAMES[model.id] ?? model.id.replace(/[-.:]+$/, '');
    const clauses = matchClauses(model.match);
    const names = [
      ...clauses.equals.map(escapeRegex),
      // starts_with keeps its prefix meaning: snapshots and fine-tune suffixes vary freely
      ...clauses.prefixes.map((p) => `${escapeRegex(p)}.*`),
      ...clauses.regexes.map(regexFragment).filter((f): f is string => f !== null),
    ];
    const build = (extra: string[]) => `(?i)^(openai/)?(${unique([...extra, ...names]).join('|')})$`;
    const base = modelName.replace(/^ft:/, '');
    return {
      family: 'openai',
      modelName,
      matchPattern: ensureMatchesName(build, modelName, escapeRegex(modelName)),
      ...tokenizer(base),
      flavour: { reasoning: REASONING.test(base), embedding: base.startsWith('text-embedding-') },
      price: pricesAsOf(model, asOf),
      probes: unique([modelName, `openai/${modelName}`, ...clauses.equals, ...clauses.prefixes.map(probeForPrefix)]),
    };
  });
}

function probeForPrefix(prefix: string): string {
  return /[-.:]$/.test(prefix) ? `${prefix}probe` : prefix;
}

/**
 * Each chat model names itself as its tokenizerModel, so the vocabulary follows its family
 * (domain/tokenizers openaiVocabulary: o200k_base for gpt-4o, 4.1, 4.5, 5 and later; cl100k_base
 * for gpt-4 and 3.5). Langfuse's list gives every gpt-* but gpt-4o* "gpt-4", which counts gpt-4.1
 * and gpt-5 with the wrong vocabulary (18 instead of 13 tokens on mixed-script text).
 */
function tokenizer(name: string): Pick<FamilyEntry, 'tokenizerId' | 'tokenizerConfig'> {
  const chat = (tokenizerModel: string, tokensPerMessage = 3, tokensPerName = 1): TokenizerConfig => ({
    tokenizerModel,
    tokensPerMessage,
    tokensPerName,
  });
  // the 0301 snapshot framed chat messages differently
  if (name === 'gpt-3.5-turbo-0301') return { tokenizerId: 'openai', tokenizerConfig: chat('gpt-3.5-turbo', 4, -1) };
  if (/^(gpt-|chatgpt-)/.test(name)) return { tokenizerId: 'openai', tokenizerConfig: chat(name) };
  if (name.startsWith('text-embedding-')) return { tokenizerId: 'openai', tokenizerConfig: { tokenizerModel: 'text-embedding-ada-002' } };
  return { tokenizerId: null, tokenizerConfig: null };
}
