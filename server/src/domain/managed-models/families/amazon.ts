// Amazon's own models (Nova, Titan), served through our Bedrock adapter. Bedrock names carry
// a version (`-v1:0`) and, for cross-region inference profiles, a region prefix
// (`us.amazon.nova-pro-v1:0`). The dataset splits Nova 2 Lite into a global profile and
// regional ones priced 10% higher, so those two keep their own prefix sets.
import { escapeRegex } from '../../regex.ts';
import { ensureMatchesName, unique, type FamilyEntry } from '../family.ts';
import { matchClauses, pricesAsOf, sourceModels } from '../source.ts';

const REGIONS = ['eu', 'us', 'apac', 'au', 'jp', 'us-gov'];

export function amazonEntries(asOf: Date): FamilyEntry[] {
  return sourceModels('aws')
    .filter((model) => /^((global|regional)\.)?amazon\./.test(model.id))
    .map((model) => {
      const scope = /^(global|regional)\./.exec(model.id)?.[1];
      const modelName = scope === 'regional' ? model.id.slice('regional.'.length) : model.id;
      const base = model.id.replace(/^(global|regional)\./, '').replace(/:\d+$/, '');
      const regions = scope === 'global' ? ['global'] : scope === 'regional' ? regionsIn(matchClauses(model.match).stems) : REGIONS;
      const prefix = `(${regions.map((r) => escapeRegex(`${r}.`)).join('|')})${scope === 'global' ? '' : '?'}`;
      const build = (extra: string[]) => `(?i)^(${unique([...extra, `${prefix}${escapeRegex(base)}(:\\d+)?`]).join('|')})$`;
      return {
        family: 'amazon',
        modelName,
        matchPattern: ensureMatchesName(build, modelName, escapeRegex(modelName)),
        tokenizerId: null,
        tokenizerConfig: null,
        flavour: { embedding: base.includes('embed') },
        price: pricesAsOf(model, asOf),
        probes: unique([modelName, ...regions.map((r) => `${r}.${base}:0`), ...(scope === 'global' ? [] : [base])]),
      };
    });
}

/** "us.amazon.nova-2-lite" -> "us" */
function regionsIn(stems: string[]): string[] {
  const found = stems.map((s) => /^([a-z-]+)\.amazon\./.exec(s)?.[1]).filter((r): r is string => r !== undefined);
  return found.length > 0 ? unique(found) : REGIONS;
}
