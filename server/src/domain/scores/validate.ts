// Checks of a score-create body (POST /api/public/scores) that a JSON schema cannot express,
// with Langfuse's messages. Shape and types are checked against the spec before this runs.
import type { ScoreDataType } from './data-type.ts';

export interface ScoreIssue {
  code: string;
  path: (string | number)[];
  message: string;
}

export const SUBJECT_MESSAGE =
  'Provide exactly one of the following: traceId (with optional observationId), sessionId or datasetRunId. ObservationId requires traceId.';
export const BOOLEAN_MESSAGE = 'Value must be a number equal to either 0 or 1 for data type BOOLEAN';
export const ANNOTATION_CONFIG_MESSAGE = 'configId is required when source is ANNOTATION (except for CORRECTION scores).';
export const CORRECTION_CONFIG_MESSAGE = 'configId is not allowed for data type CORRECTION';

export interface ScoreCreateInput {
  name: string;
  value: number | string;
  dataType?: ScoreDataType | null;
  traceId?: string | null;
  observationId?: string | null;
  sessionId?: string | null;
  datasetRunId?: string | null;
  configId?: string | null;
  source?: 'API' | 'ANNOTATION' | null;
  metadata?: unknown;
}

const given = (v: unknown) => v !== undefined && v !== null && v !== '';
const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

export function scoreCreateIssues(b: ScoreCreateInput): ScoreIssue[] {
  const issues: ScoreIssue[] = [];
  const subjects = [given(b.traceId), given(b.sessionId), given(b.datasetRunId)].filter(Boolean).length;
  if (subjects !== 1 || (given(b.observationId) && !given(b.traceId))) issues.push({ code: 'custom', path: [], message: SUBJECT_MESSAGE });
  const v = b.value;
  switch (b.dataType) {
    case 'NUMERIC':
      if (typeof v !== 'number')
        issues.push({ code: 'invalid_type', path: ['value'], message: `Invalid input: expected number, received ${typeName(v)}` });
      break;
    case 'BOOLEAN':
      if (v !== 0 && v !== 1) issues.push({ code: 'custom', path: ['value'], message: BOOLEAN_MESSAGE });
      break;
    case 'CATEGORICAL':
    case 'CORRECTION':
    case 'TEXT':
      if (typeof v !== 'string')
        issues.push({ code: 'invalid_type', path: ['value'], message: `Invalid input: expected string, received ${typeName(v)}` });
      else if (b.dataType === 'TEXT' && v.length < 1)
        issues.push({ code: 'too_small', path: ['value'], message: 'Too small: expected string to have >=1 characters' });
      else if (b.dataType === 'TEXT' && v.length > 500)
        issues.push({ code: 'too_big', path: ['value'], message: 'Too big: expected string to have <=500 characters' });
      if (b.dataType === 'CORRECTION' && given(b.configId))
        issues.push({ code: 'custom', path: ['configId'], message: CORRECTION_CONFIG_MESSAGE });
      break;
  }
  if (b.source === 'ANNOTATION' && b.dataType !== 'CORRECTION' && !given(b.configId))
    issues.push({ code: 'custom', path: ['configId'], message: ANNOTATION_CONFIG_MESSAGE });
  if (b.metadata === null)
    issues.push({ code: 'invalid_type', path: ['metadata'], message: 'Invalid input: expected JSON value other than null, received null' });
  return issues;
}
