// Read access to the price dataset bundled in @pydantic/genai-prices. The package exports no
// data object, but findProvider() returns the bundled provider (with its models) as long as
// nobody calls updatePrices(), which this service never does: the list must not change at
// runtime behind the database's back.
import { findProvider, type MatchLogic, type ModelInfo, type ModelPrice } from '@pydantic/genai-prices';

export type { ModelInfo, ModelPrice };

export function sourceModels(providerId: string): ModelInfo[] {
  const provider = findProvider({ providerId });
  if (!provider || provider.id !== providerId) throw new Error(`genai-prices has no provider "${providerId}"`);
  return provider.models;
}

/**
 * The prices in force at `asOf`: the latest start-date constraint already reached, else the
 * unconstrained entry. Time-of-day prices (off-peak discounts) cannot be expressed as a tier
 * condition, so they are skipped in favour of the regular price.
 */
export function pricesAsOf(model: ModelInfo, asOf: Date): ModelPrice {
  if (!Array.isArray(model.prices)) return model.prices;
  // same walk as the library's own lookup: the last entry whose constraint holds wins
  for (let i = model.prices.length - 1; i >= 0; i--) {
    const { constraint, prices } = model.prices[i]!;
    if (constraint === undefined) return prices;
    if (constraint.type === 'start_date' && asOf >= new Date(constraint.start_date)) return prices;
  }
  return model.prices[0]!.prices;
}

/** The dataset's match rule flattened into the literal forms this module can turn into RE2. */
export interface MatchClauses {
  equals: string[];
  /** starts_with / contains / ends_with values: name stems that real names extend */
  stems: string[];
  /** starts_with values alone (OpenAI keeps true prefix semantics for them) */
  prefixes: string[];
  regexes: string[];
}

export function matchClauses(match: MatchLogic): MatchClauses {
  const out: MatchClauses = { equals: [], stems: [], prefixes: [], regexes: [] };
  const visit = (m: MatchLogic): void => {
    if ('or' in m) m.or.forEach(visit);
    // an `and` only narrows (e.g. "starts_with gemini-2.5-pro and not -tts"); the family
    // grammars leave such suffixes out, so keeping the positive part is enough
    else if ('and' in m) m.and.filter((part) => !('regex' in part)).forEach(visit);
    else if ('equals' in m) out.equals.push(m.equals.toLowerCase());
    else if ('starts_with' in m) {
      out.stems.push(m.starts_with.toLowerCase());
      out.prefixes.push(m.starts_with.toLowerCase());
    } else if ('contains' in m) out.stems.push(m.contains.toLowerCase());
    else if ('ends_with' in m) out.stems.push(m.ends_with.toLowerCase());
    else if ('regex' in m) out.regexes.push(m.regex);
  };
  visit(match);
  return out;
}
