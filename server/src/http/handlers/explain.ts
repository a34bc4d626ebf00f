// POST /api/public/models/explain — the ingestion pricing path, shown step by step and
// stored nowhere.
import { computeUsageAndCost, needsTokenization } from '../../domain/usage/index.ts';
import { parseLegacyUsage, parseUsageDetails, providedCost, providedUsage, parseCostDetails } from '../../domain/usage/normalise.ts';
import { invalidData } from '../errors.ts';
import { projectOf, type OperationHandler } from '../handler.ts';

export const modelsExplain: OperationHandler = async (ctx) => {
  const projectId = projectOf(ctx);
  const b = ctx.body;
  const legacy = b.usage != null ? parseLegacyUsage(b.usage) : {};
  if (legacy.error) throw invalidData([{ code: 'custom', path: ['usage'], message: legacy.error }]);
  const matcher = await ctx.services.models.matcherFor(ctx.em, projectId);
  const model = matcher.match(b.model);
  const parsed = parseUsageDetails(b.usageDetails);

  let inferredUsage: Record<string, number> | undefined;
  const nothingProvided = {
    providedUsage: providedUsage(legacy.value, parsed.usage),
    providedCost: providedCost(legacy.value, parseCostDetails(b.costDetails)),
  };
  if (model && needsTokenization({ ...nothingProvided, model, level: 'DEFAULT' })) {
    inferredUsage = await ctx.services.tokenizers.inferUsage({ tokenizerId: model.tokenizerId, tokenizerConfig: model.tokenizerConfig }, b.input ?? null, b.output ?? null);
  }
  const r = computeUsageAndCost({
    legacyUsage: legacy.value, usageDetails: b.usageDetails, costDetails: b.costDetails, model, level: 'DEFAULT',
    modelParameters: b.modelParameters, metadata: b.metadata, inferredUsage,
  });
  const tier = r.tier ? model?.pricingTiers.find((t) => t.id === r.tier!.id) ?? null : null;
  return {
    status: 200,
    body: {
      model: model ? { id: model.id, modelName: model.modelName, matchPattern: model.matchPattern, isLangfuseManaged: model.projectId === null } : null,
      tier: tier ? { id: tier.id, name: tier.name, priority: tier.priority, isDefault: tier.isDefault } : null,
      tierReason: r.tierReason || null,
      usageShape: r.usageInferred ? 'inferred' : parsed.shape,
      usageDetails: r.usageDetails,
      costDetails: r.costDetails,
      lines: r.lines,
      unpricedUsageKeys: r.unpricedUsageKeys,
      totalCost: r.costDetails.total ?? null,
      costStatus: r.costStatus,
      warnings: r.warnings,
    },
  };
};
