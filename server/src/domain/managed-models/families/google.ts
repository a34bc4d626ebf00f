// Gemini models as Google AI Studio and Vertex AI name them. Patterns follow Langfuse's
// `(?i)^(google(ai)?/)?(<names>)(@<version>)?$`. Where the dataset matches by prefix or
// substring, the stem admits only version-like suffixes (-001, -latest, -exp-03-25,
// -preview-05-06, -preview-09-2025), so sibling models such as -tts, -lite or -image
// keep their own entries.
import { escapeRegex } from '../../regex.ts';
import { ensureMatchesName, regexFragment, unique, type FamilyEntry } from '../family.ts';
import { matchClauses, pricesAsOf, sourceModels } from '../source.ts';

const DATE = '(-\\d{2}-\\d{2,4}|-\\d{4})';
const VERSION_SUFFIX = `(-\\d{3}|-latest|-(exp|preview)${DATE}?)?`;
const DATED_SUFFIX = `(${DATE}|-\\d{3}|-latest)?`;

/** Names the dataset prices through another entry by accident of substring order. */
const EXTRA_STEMS: Record<string, string[]> = { 'gemini-flash-1.5-8b': ['gemini-1.5-flash-8b'] };

export function googleEntries(asOf: Date): FamilyEntry[] {
  return sourceModels('google')
    .filter((model) => model.id.startsWith('gemini'))
    .map((model) => {
      const modelName = model.id;
      const clauses = matchClauses(model.match);
      const stems = pruneStems(unique([...clauses.stems, ...(EXTRA_STEMS[model.id] ?? [])].map((s) => s.replace(/[-.:@]+$/, ''))));
      const names = [
        ...clauses.equals.map(escapeRegex),
        ...stems.map((s) => escapeRegex(s) + suffixFor(s)),
        ...clauses.regexes.map(regexFragment).filter((f): f is string => f !== null),
      ];
      const build = (extra: string[]) => `(?i)^(google(ai)?/)?(${unique([...extra, ...names]).join('|')})(@[a-zA-Z0-9]+)?$`;
      return {
        family: 'google',
        modelName,
        matchPattern: ensureMatchesName(build, modelName, escapeRegex(modelName)),
        tokenizerId: null,
        tokenizerConfig: null,
        flavour: { gemini: true, reasoning: thinks(modelName), embedding: modelName.includes('embedding') },
        price: pricesAsOf(model, asOf),
        probes: unique([modelName, `google/${modelName}`, `googleai/${modelName}`, ...clauses.equals, ...stems.flatMap(probesForStem)]),
      };
    });
}

function suffixFor(stem: string): string {
  return /-(preview|exp)$/.test(stem) ? DATED_SUFFIX : VERSION_SUFFIX;
}

/** Drops stems the version suffix of a shorter stem already covers ("gemini-2.0-flash-exp"). */
function pruneStems(stems: string[]): string[] {
  return stems.filter((s) => !stems.some((t) => t !== s && s.startsWith(t) && /^-(\d+|exp|latest|preview)$/.test(s.slice(t.length))));
}

/** Gemini 2.5 and later think; their thought tokens are billed as output. */
function thinks(name: string): boolean {
  const version = Number(/(\d+(?:\.\d+)?)/.exec(name)?.[1] ?? 0);
  return version >= 2.5 && !/tts|embedding/.test(name);
}

function probesForStem(stem: string): string[] {
  const versions = /-(preview|exp)$/.test(stem) ? ['-05-06', '-09-2025'] : ['-001', '-latest', '-exp-03-25', '-preview-05-06'];
  return [stem, `google/${stem}`, `${stem}@001`, ...versions.map((v) => stem + v)];
}
