import { validateModelDefinitionInput } from '../../domain/models/validate.ts';
import { deleteProjectModel, getVisibleModel, insertModel, projectModelNameTaken } from '../../store/models.ts';
import { invalidData, invalidRequest, notFound } from '../errors.ts';
import { paginated, pagination, projectOf, type OperationHandler } from '../handler.ts';
import { presentModel } from '../present/model.ts';

const NOT_FOUND = 'No model with this id found.';
const NOT_DELETABLE =
  'No model with this id found. Note: You cannot delete built-in models, override them with a model with the same name.';

// a kept page (the catalog answers the same object while the revision holds) is sent as the
// bytes it was first serialized to: presenting and stringifying 50 models was a fifth of a request
const serializedPages = new WeakMap<object, Buffer>();

export const modelsList: OperationHandler<'models_list'> = async (ctx) => {
  const { page, limit } = pagination(ctx.query);
  const listed = await ctx.services.models.listPage(ctx.em, projectOf(ctx), page, limit);
  let bytes = serializedPages.get(listed);
  if (!bytes) {
    bytes = Buffer.from(JSON.stringify(paginated(listed.models.map(presentModel), page, limit, listed.total)));
    serializedPages.set(listed, bytes);
  }
  return { status: 200, body: bytes, headers: { 'content-type': 'application/json; charset=utf-8' } };
};

export const modelsGet: OperationHandler<'models_get'> = async (ctx) => {
  const model = await getVisibleModel(ctx.em, projectOf(ctx), ctx.params.id!);
  if (!model) throw notFound(NOT_FOUND);
  return { status: 200, body: presentModel(model) };
};

function parseStartDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  // the spec accepts a date or a date-time; a bare date means midnight UTC
  return new Date(/^\d{4}-\d{2}-\d{2}$/.test(String(value)) ? `${value}T00:00:00Z` : String(value));
}

export const modelsCreate: OperationHandler<'models_create'> = async (ctx) => {
  const projectId = projectOf(ctx);
  const body = ctx.body;
  const { issues, tiers } = validateModelDefinitionInput(body);
  if (issues.length || !tiers) throw invalidData(issues);
  const conflict = () => invalidRequest(`Model name '${body.modelName}' already exists in project`);
  if (await projectModelNameTaken(ctx.em, projectId, body.modelName)) throw conflict();

  let id: string;
  try {
    id = await insertModel(ctx.em, projectId, {
      modelName: body.modelName,
      matchPattern: body.matchPattern,
      startDate: parseStartDate(body.startDate),
      unit: body.unit ?? null,
      tokenizerId: body.tokenizerId ?? null,
      tokenizerConfig: body.tokenizerConfig ?? null,
      tiers,
      flatPrices: !(Array.isArray(body.pricingTiers) && body.pricingTiers.length > 0),
    });
  } catch (e) {
    // two concurrent creates of one name: the unique index decides
    if ((e as { code?: string }).code === '23505' || /unique|duplicate/i.test(String((e as Error).message))) throw conflict();
    throw e;
  }
  ctx.services.models.changed(projectId);
  const created = await getVisibleModel(ctx.em.fork(), projectId, id);
  return { status: 200, body: presentModel(created!) };
};

export const modelsDelete: OperationHandler<'models_delete'> = async (ctx) => {
  const projectId = projectOf(ctx);
  if (!(await deleteProjectModel(ctx.em, projectId, ctx.params.id!))) throw notFound(NOT_DELETABLE);
  ctx.services.models.changed(projectId);
  return { status: 200, body: { message: 'Model successfully deleted' } };
};
