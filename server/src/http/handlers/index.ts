// operationId (from the spec) → handler
import type { HandlerRegistry } from '../handler.ts';
import { modelsExplain } from './explain.ts';
import { health } from './health.ts';
import { ingestionBatch } from './ingestion.ts';
import {
  llmConnectionsDelete,
  llmConnectionsList,
  llmConnectionsModels,
  llmConnectionsTest,
  llmConnectionsUpsert,
} from './llm-connections.ts';
import { playgroundCompletions } from './playground.ts';
import {
  evaluationRulesExecutions,
  evaluationRulesRetryExecution,
  evaluationsLlmAsAJudge,
  evaluationsPromptPreview,
} from './evaluations.ts';
import { metricsDaily, metricsV1, metricsV2, metricsV2Schema } from './metrics.ts';
import { modelsCreate, modelsDelete, modelsGet, modelsList } from './models.ts';
import { observationsGet, observationsList, traceGet } from './observations.ts';
import { traceList } from './traces.ts';
import { modelsReprice, modelsRepriceGet, modelsRepriceList } from './reprice.ts';
import { opentelemetryExportTraces } from './otel.ts';
import { evaluatorsCreate, evaluatorsDelete, evaluatorsGet, evaluatorsList } from './evaluators.ts';
import {
  evaluationRulesCreate,
  evaluationRulesDelete,
  evaluationRulesGet,
  evaluationRulesList,
  evaluationRulesUpdate,
} from './evaluation-rules.ts';
import { alertsCreate, alertsDelete, alertsDeliveries, alertsGet, alertsList, alertsUpdate } from './alerts.ts';
import { scoresCreate, scoresDelete, scoresGet, scoresList, scoresV2Get, scoresV2List } from './scores.ts';

export const handlers: HandlerRegistry = {
  health_health: health,
  models_list: modelsList,
  models_create: modelsCreate,
  models_get: modelsGet,
  models_delete: modelsDelete,
  models_explain: modelsExplain,
  ingestion_batch: ingestionBatch,
  opentelemetry_exportTraces: opentelemetryExportTraces,
  observations_getMany: observationsList,
  observations_get: observationsGet,
  trace_get: traceGet,
  trace_list: traceList,
  models_reprice: modelsReprice,
  models_repriceGet: modelsRepriceGet,
  models_repriceList: modelsRepriceList,
  metrics_v2: metricsV2,
  metrics_v2Schema: metricsV2Schema,
  metrics_v1: metricsV1,
  metrics_daily: metricsDaily,
  llmConnections_list: llmConnectionsList,
  llmConnections_upsert: llmConnectionsUpsert,
  llmConnections_delete: llmConnectionsDelete,
  llmConnections_models: llmConnectionsModels,
  llmConnections_test: llmConnectionsTest,
  playground_completions: playgroundCompletions,
  evaluations_llmAsAJudge: evaluationsLlmAsAJudge,
  evaluations_promptPreview: evaluationsPromptPreview,
  evaluationRules_retryExecution: evaluationRulesRetryExecution,
  evaluationRules_executions: evaluationRulesExecutions,
  evaluators_list: evaluatorsList,
  evaluators_create: evaluatorsCreate,
  evaluators_get: evaluatorsGet,
  evaluators_delete: evaluatorsDelete,
  evaluationRules_list: evaluationRulesList,
  evaluationRules_create: evaluationRulesCreate,
  evaluationRules_get: evaluationRulesGet,
  evaluationRules_update: evaluationRulesUpdate,
  evaluationRules_delete: evaluationRulesDelete,
  scores_create: scoresCreate,
  scores_list: scoresList,
  scores_get: scoresGet,
  scores_delete: scoresDelete,
  scoresV2_list: scoresV2List,
  scoresV2_get: scoresV2Get,
  alerts_create: alertsCreate,
  alerts_list: alertsList,
  alerts_get: alertsGet,
  alerts_update: alertsUpdate,
  alerts_delete: alertsDelete,
  alerts_deliveries: alertsDeliveries,
};
