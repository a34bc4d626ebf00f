// Claude models as the Anthropic API, Amazon Bedrock and Google Vertex AI name them. The dataset
// lists one entry per model generation with loose prefix rules; the pattern spells out the
// three naming schemes around each name stem instead, so that unrelated names stay unmatched:
//   claude-3-5-sonnet-20241022 | claude-3-5-sonnet-latest                       (Anthropic)
//   us.anthropic.claude-3-5-sonnet-20241022-v2:0 | anthropic.claude-opus-4-6-v1 (Bedrock)
//   claude-3-5-sonnet-v2@20241022 | claude-sonnet-4@20250514                    (Vertex AI)
import { escapeRegex } from '../../regex.ts';
import { ensureMatchesName, unique, type FamilyEntry } from '../family.ts';
import { matchClauses, pricesAsOf, sourceModels } from '../source.ts';

export const BEDROCK_REGION_PREFIX = '(eu\\.|us\\.|apac\\.|au\\.|jp\\.|global\\.|us-gov\\.)?';

/** Point releases the dataset covers with a bare prefix ("claude-2" also prices claude-2.1). */
const EXTRA_STEMS: Record<string, string[]> = { 'claude-2': ['claude-2.0', 'claude-2.1'] };

export function anthropicEntries(asOf: Date): FamilyEntry[] {
  return sourceModels('anthropic').map((model) => {
    const modelName = model.id.replace(/-latest$/, '');
    const clauses = matchClauses(model.match);
    const stems = unique([...clauses.equals, ...clauses.stems, ...(EXTRA_STEMS[model.id] ?? [])].map(toStem));
    const build = (extra: string[]) => {
      const s = `(${unique([...extra, ...stems.map(escapeRegex)]).join('|')})`;
      return `(?i)^(anthropic/)?(${s}(-\\d{8}|-latest)?|${BEDROCK_REGION_PREFIX}anthropic\\.${s}(-\\d{8})?(-v\\d+)?(:\\d+)?|${s}(-v\\d+)?@\\d{8})$`;
    };
    return {
      family: 'anthropic',
      modelName,
      matchPattern: ensureMatchesName(build, modelName, escapeRegex(modelName)),
      tokenizerId: 'claude',
      tokenizerConfig: null,
      flavour: { anthropic: true },
      price: pricesAsOf(model, asOf),
      probes: unique([modelName, ...stems.flatMap(probesForStem)]),
    };
  });
}

/** "claude-sonnet-4-2025" / "claude-opus-4-20250514" / "claude-sonnet-4@" all mean claude-*-4. */
function toStem(value: string): string {
  return value
    .replace(/[-@.:]+$/, '')
    .replace(/-20\d\d(\d{4})?$/, '')
    .replace(/-latest$/, '');
}

function probesForStem(stem: string): string[] {
  return [
    stem,
    `anthropic/${stem}`,
    `${stem}-20250101`,
    `anthropic.${stem}-20250101-v1:0`,
    `us.anthropic.${stem}-v1:0`,
    `global.anthropic.${stem}-v1`,
    `${stem}@20250101`,
    `${stem}-v2@20250101`,
  ];
}
