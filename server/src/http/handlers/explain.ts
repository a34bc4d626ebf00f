// POST /api/public/models/explain: one generation through ingestion as a dry run (ingest() with
// source `explain`: the same validation, usage reading, merge, model match and pricing as a batch,
// and nothing stored), shown step by step.
import type { ExplainCostResponse } from '../../../../generated/client/types.gen.ts';
import { ingest } from '../../ingestion/ingest.ts';
import { appliedTier } from '../../ingestion/price.ts';
import { invalidData } from '../errors.ts';
import { type OperationHandler, projectOf } from '../handler.ts';

const EVENT_ID = 'explain';
const BODY_FIELDS = ['model', 'usage', 'usageDetails', 'costDetails', 'modelParameters', 'metadata', 'input', 'output'] as const;

export const modelsExplain: OperationHandler<'models_explain'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const b = ctx.body;
  const body: Record<string, unknown> = { id: EVENT_ID };
  for (const k of BODY_FIELDS) if (b[k] !== undefined) body[k] = b[k];
  const event = { id: EVENT_ID, type: 'generation-create', timestamp: new Date().toISOString(), body };
  const outcome = await ingest(ctx.em, ctx.services, projectId, [{ id: EVENT_ID, events: [event] }], { source: 'explain' });
  const refused = outcome.rejected[0];
  // the request's fields are the event body's: name them as the caller sent them
  if (refused) throw invalidData(refused.issues.map((i) => (i.path[0] === 'body' ? { ...i, path: i.path.slice(1) } : i)));
  const { model, pricing: r, usageShape, warnings } = outcome.priced[0]!;
  const tier = appliedTier(model, r);
  const answer: ExplainCostResponse = {
    model: model
      ? { id: model.id, modelName: model.modelName, matchPattern: model.matchPattern, isLangfuseManaged: model.projectId === null }
      : null,
    tier: tier ? { id: tier.id, name: tier.name, priority: tier.priority, isDefault: tier.isDefault } : null,
    tierReason: r.tierReason || null,
    usageShape: r.usageInferred ? 'inferred' : usageShape,
    usageDetails: r.usageDetails,
    costDetails: r.costDetails,
    lines: r.lines,
    unpricedUsageKeys: r.unpricedUsageKeys,
    usagePricedAs: r.pricedAs,
    totalCost: r.costDetails.total ?? null,
    costStatus: r.costStatus,
    warnings,
  };
  return { status: 200, body: answer };
};
