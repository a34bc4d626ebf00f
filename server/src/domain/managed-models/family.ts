// What each provider family contributes to the managed list, and the pattern helpers they share.
import type { TokenizerConfig, TokenizerId } from '../models/types.ts';
import { compileRe2 } from '../regex.ts';
import type { ModelPrice } from './source.ts';
import type { KeyFlavour } from './usage-keys.ts';

export interface FamilyEntry {
  family: string;
  modelName: string;
  matchPattern: string;
  tokenizerId: TokenizerId | null;
  tokenizerConfig: TokenizerConfig | null;
  flavour: KeyFlavour;
  price: ModelPrice;
  /** Real-world spellings this entry must match and no other entry may (checked by tests). */
  probes: string[];
}

/** A dataset regex as a pattern fragment, or null when RE2 cannot run it (lookarounds). */
export function regexFragment(regex: string): string | null {
  let body = regex.startsWith('^') ? regex.slice(1) : regex;
  // the dataset tests with JS RegExp.test, i.e. unanchored: an open end is a prefix match
  body = body.endsWith('$') && !body.endsWith('\\$') ? body.slice(0, -1) : `${body}.*`;
  return compileRe2(body) instanceof Error ? null : body;
}

export function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** The pattern, widened with the exact model name when the derived forms miss it. */
export function ensureMatchesName(build: (extra: string[]) => string, modelName: string, escapedName: string): string {
  const pattern = build([]);
  const re = compileRe2(pattern);
  return !(re instanceof Error) && re.test(modelName) ? pattern : build([escapedName]);
}
