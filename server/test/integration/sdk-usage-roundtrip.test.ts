// The SDK's usage helpers, round-tripped through the server: what a helper returns is stored
// as the observation's buckets unchanged, every non-zero bucket has a managed price, and the
// cost is the sum of units × those prices. For OpenAI, the untouched provider object sent as
// usageDetails is stored with the same buckets (the server's mapping agrees with the helper).
import { describe, expect, it } from 'vitest';
import { raw, unique } from '../support/client.ts';
import { usageFromAnthropic, usageFromBedrock, usageFromGemini, usageFromOpenAI, type UsageBuckets } from '../../../sdk/src/usage.ts';
import openai from '../../../sdk/test/fixtures/openai.json' with { type: 'json' };
import anthropic from '../../../sdk/test/fixtures/anthropic.json' with { type: 'json' };
import gemini from '../../../sdk/test/fixtures/gemini.json' with { type: 'json' };
import bedrock from '../../../sdk/test/fixtures/bedrock.json' with { type: 'json' };

const ev = (type: string, body: Record<string, unknown>) => ({ id: unique('evt'), timestamp: new Date().toISOString(), type, body });

async function ingestGeneration(model: string, usageDetails: unknown): Promise<string> {
  const id = unique('obs');
  const res = await raw('/api/public/ingestion', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ batch: [ev('generation-create', { id, name: 'sdk-usage', model, usageDetails })] }),
  });
  expect(res.status).toBe(207);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toEqual([]);
  return id;
}

async function readBack(id: string) {
  const res = await raw(`/api/public/observations/${encodeURIComponent(id)}`);
  expect(res.status).toBe(200);
  return res.body as {
    usageDetails: Record<string, number>;
    costDetails: Record<string, number>;
    calculatedTotalCost: number;
    modelId: string | null;
    usagePricingTierId?: string | null;
    costStatus: string;
    unpricedUsageKeys: string[];
  };
}

async function tierPrices(modelId: string, tierId: string | null | undefined): Promise<Record<string, number>> {
  const res = await raw(`/api/public/models/${encodeURIComponent(modelId)}`);
  expect(res.status).toBe(200);
  expect(res.body.isLangfuseManaged, `${res.body.modelName} should be a managed model`).toBe(true);
  const tiers = res.body.pricingTiers as { id: string; isDefault: boolean; prices: Record<string, number> }[];
  const tier = tiers.find((t) => t.id === tierId) ?? tiers.find((t) => t.isDefault)!;
  return tier.prices;
}

interface Case {
  name: string;
  model: string;
  recorded: unknown;
  helper: (u: any) => UsageBuckets;
  /** the raw provider object is itself a shape the server maps (OpenAI) */
  serverMapsRaw?: boolean;
}

const cases: Case[] = [
  {
    name: 'OpenAI chat, cached prompt',
    model: 'gpt-4.1-mini',
    recorded: openai['chat-gpt-4.1-mini-cached'],
    helper: usageFromOpenAI,
    serverMapsRaw: true,
  },
  {
    name: 'OpenAI chat, reasoning',
    model: 'o4-mini',
    recorded: openai['chat-o4-mini-reasoning'],
    helper: usageFromOpenAI,
    serverMapsRaw: true,
  },
  {
    name: 'OpenAI Responses, cached + reasoning',
    model: 'o4-mini',
    recorded: openai['responses-o4-mini'],
    helper: usageFromOpenAI,
    serverMapsRaw: true,
  },
  {
    name: 'OpenAI chat via a gateway adding cost',
    model: 'openai/gpt-4.1-mini',
    recorded: openai['chat-openrouter-with-cost'],
    helper: usageFromOpenAI,
  },
  {
    name: 'Anthropic, 5m cache write',
    model: 'claude-sonnet-4-5-20250929',
    recorded: anthropic['messages-cache-write-5m'],
    helper: usageFromAnthropic,
  },
  {
    name: 'Anthropic, cache read + 1h write',
    model: 'claude-sonnet-4-5',
    recorded: anthropic['messages-cache-read-and-1h-write'],
    helper: usageFromAnthropic,
  },
  {
    name: 'Anthropic, no cache_creation split',
    model: 'claude-3-5-haiku-20241022',
    recorded: anthropic['messages-legacy-no-split'],
    helper: usageFromAnthropic,
  },
  {
    name: 'Gemini, cached + thinking',
    model: 'gemini-2.5-flash',
    recorded: gemini['gemini-2.5-flash-cached-thinking'],
    helper: usageFromGemini,
  },
  { name: 'Gemini, tool use', model: 'gemini-2.5-flash', recorded: gemini['gemini-2.5-flash-tool-use'], helper: usageFromGemini },
  { name: 'Gemini, audio prompt', model: 'gemini-2.5-flash', recorded: gemini['gemini-2.5-flash-audio'], helper: usageFromGemini },
  {
    name: 'Bedrock Claude, cache write',
    model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    recorded: bedrock['converse-claude-cache-write'],
    helper: usageFromBedrock,
  },
  {
    name: 'Bedrock Claude, cache read',
    model: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    recorded: bedrock['converse-claude-cache-read'],
    helper: usageFromBedrock,
  },
  { name: 'Bedrock Nova', model: 'amazon.nova-pro-v1:0', recorded: bedrock['converse-nova-pro'], helper: usageFromBedrock },
];

describe('SDK usage helpers round-trip through ingestion', () => {
  it.each(cases)(
    "$name ($model): stored buckets equal the helper's, priced at the managed prices",
    async ({ model, recorded, helper, serverMapsRaw }) => {
      const buckets = helper(recorded);
      const obs = await readBack(await ingestGeneration(model, buckets));
      expect(obs.usageDetails).toEqual(buckets);
      expect(obs.modelId, `no model matched ${model}`).toBeTruthy();

      const prices = await tierPrices(obs.modelId!, obs.usagePricingTierId);
      // every bucket that holds tokens has a price under exactly its key
      const unpriced = Object.entries(buckets)
        .filter(([k, v]) => v > 0 && k !== 'total' && prices[k] === undefined)
        .map(([k]) => k);
      expect(unpriced, `unpriced buckets on ${model}`).toEqual([]);
      const expected = Object.entries(buckets).reduce((s, [k, v]) => s + v * (prices[k] ?? 0), 0);
      expect(expected).toBeGreaterThan(0);
      expect(obs.calculatedTotalCost).toBeCloseTo(expected, 12);
      for (const [k, v] of Object.entries(buckets)) {
        if (v > 0 && prices[k] !== undefined) expect(obs.costDetails[k], k).toBeCloseTo(v * prices[k]!, 12);
      }

      if (serverMapsRaw) {
        const rawObs = await readBack(await ingestGeneration(model, recorded));
        expect(rawObs.usageDetails).toEqual(buckets);
        expect(rawObs.calculatedTotalCost).toBeCloseTo(obs.calculatedTotalCost, 12);
      }
    },
  );

  it("a gateway's OpenAI object with extra keys is stored unmapped; the helper's buckets are what gets priced", async () => {
    const recorded = openai['chat-openrouter-with-cost'];
    const rawObs = await readBack(await ingestGeneration('gpt-4.1-mini', recorded));
    expect(rawObs.usageDetails).toMatchObject({ prompt_tokens: 194, completion_tokens: 2, total_tokens: 196 });
    expect(rawObs.usageDetails.input).toBeUndefined();
  });
});
