// How a score's value is stored for its data type: one rule for ingestion's score-create
// events, the public Scores API and evaluator-written scores.
import { ScoreDataTypeValues, type ScoreDataType } from '../../../../generated/enums.ts';
export const SCORE_DATA_TYPES = ScoreDataTypeValues;
export type { ScoreDataType };

/** the data type given, else inferred from the value: a string is CATEGORICAL, anything else NUMERIC */
export function inferDataType(value: unknown, dataType: ScoreDataType | null | undefined): ScoreDataType {
  return dataType ?? (typeof value === 'string' ? 'CATEGORICAL' : 'NUMERIC');
}

/**
 * The stored `value` and `stringValue`: numeric types keep the number; a BOOLEAN keeps its
 * label as Langfuse shows it ("True"/"False"); a string value is kept as the string value.
 */
export function storedValues(value: unknown, dataType: ScoreDataType): { value: number | null; stringValue: string | null } {
  const numeric = typeof value === 'number' ? value : null;
  return {
    value: dataType === 'NUMERIC' || dataType === 'BOOLEAN' ? numeric : null,
    stringValue: dataType === 'BOOLEAN' ? (numeric === 1 ? 'True' : 'False') : typeof value === 'string' ? value : null,
  };
}
