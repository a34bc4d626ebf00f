// Which observation types carry usage and cost: Langfuse tracks them on generation-like
// observations only (every type but SPAN and EVENT). Ingestion matches a model and prices only
// these; the OTel mapping reads a span's model, usage and cost only for these.
import { ObservationTypeValues, type ObservationType } from '../../../../generated/enums.ts';

const UNPRICED: readonly ObservationType[] = ['SPAN', 'EVENT'];

/** the observation types whose usage and cost Tally records, in the spec's order */
export const PRICED_OBSERVATION_TYPES: readonly ObservationType[] = ObservationTypeValues.filter((t) => !UNPRICED.includes(t));

const PRICED = new Set<string>(PRICED_OBSERVATION_TYPES);

/** whether an observation of this type is priced; the type in any case (`GENERATION`, or OTel's `generation`) */
export const isPricedType = (type: string): boolean => PRICED.has(type.toUpperCase());
