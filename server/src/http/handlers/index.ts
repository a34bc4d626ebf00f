// operationId (from the spec) → handler
import type { OperationHandler } from '../handler.ts';
import { health } from './health.ts';
import { modelsCreate, modelsDelete, modelsGet, modelsList } from './models.ts';

export const handlers: Record<string, OperationHandler> = {
  health_health: health,
  models_list: modelsList,
  models_create: modelsCreate,
  models_get: modelsGet,
  models_delete: modelsDelete,
};
