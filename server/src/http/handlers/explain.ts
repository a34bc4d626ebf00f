// POST /api/public/models/explain — the ingestion pricing path, shown step by step and
// stored nowhere.
import type { ExplainCostResponse } from '../../../../generated/client/types.gen.ts';
import { appliedTier, priceUsage } from '../../ingestion/price.ts';
import { parseLegacyUsage } from '../../domain/usage/normalise.ts';
import { readProvided } from '../../domain/usage/index.ts';
import { legacyDroppedWarnings } from '../../domain/usage/warnings.ts';
import {
  findInexactCount,
  findOversizedCost,
  inexactCountMessage,
  LEGACY_COST_KEYS,
  oversizedCostMessage,
} from '../../domain/usage/exact-counts.ts';
import { modelRevision } from '../../store/models.ts';
import { kysely } from '../../store/sql.ts';
import { invalidData } from '../errors.ts';
import { projectOf, type OperationHandler } from '../handler.ts';

export const modelsExplain: OperationHandler = async (ctx) => {
  const projectId = projectOf(ctx);
  const b = ctx.body;
  const inexact = findInexactCount(b.usageDetails, ['usageDetails']) ?? findInexactCount(b.usage, ['usage']);
  if (inexact) throw invalidData([{ code: 'too_big', path: inexact.path, message: inexactCountMessage(inexact) }]);
  const oversized = findOversizedCost(b.costDetails, ['costDetails']) ?? findOversizedCost(b.usage, ['usage'], LEGACY_COST_KEYS);
  if (oversized) throw invalidData([{ code: 'too_big', path: oversized.path, message: oversizedCostMessage(oversized) }]);
  const legacy = b.usage != null ? parseLegacyUsage(b.usage) : {};
  if (legacy.error) throw invalidData([{ code: 'custom', path: ['usage'], message: legacy.error }]);
  const revision = await modelRevision(kysely(ctx.em), projectId);
  const model = (await ctx.services.models.matcherFor(ctx.em, projectId, revision)).match(b.model);
  const { parsed, providedUsage, providedCost } = readProvided({
    legacyUsage: legacy.value,
    usageDetails: b.usageDetails,
    costDetails: b.costDetails,
  });
  const r = await priceUsage(
    {
      model,
      level: 'DEFAULT',
      modelParameters: b.modelParameters,
      metadata: b.metadata,
      input: b.input,
      output: b.output,
      providedUsage,
      providedCost,
      rawUsageDetails: b.usageDetails,
      parsedUsageDetails: parsed,
      rawCostDetails: b.costDetails,
    },
    ctx.services.tokenizers,
  );
  const tier = appliedTier(model, r);
  const body: ExplainCostResponse = {
    model: model
      ? { id: model.id, modelName: model.modelName, matchPattern: model.matchPattern, isLangfuseManaged: model.projectId === null }
      : null,
    tier: tier ? { id: tier.id, name: tier.name, priority: tier.priority, isDefault: tier.isDefault } : null,
    tierReason: r.tierReason || null,
    usageShape: r.usageInferred ? 'inferred' : parsed.shape,
    usageDetails: r.usageDetails,
    costDetails: r.costDetails,
    lines: r.lines,
    unpricedUsageKeys: r.unpricedUsageKeys,
    usagePricedAs: r.pricedAs,
    totalCost: r.costDetails.total ?? null,
    costStatus: r.costStatus,
    warnings: [...legacyDroppedWarnings(legacy.dropped), ...r.warnings],
  };
  return { status: 200, body };
};
