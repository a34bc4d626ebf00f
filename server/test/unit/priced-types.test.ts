// Which observation types are priced: one list (domain/usage/priced-types.ts) for ingestion and the OTel mapping.
import { describe, expect, it } from 'vitest';
import { ObservationTypeValues } from '../../../generated/enums.ts';
import { isPricedType, PRICED_OBSERVATION_TYPES } from '../../src/domain/usage/priced-types.ts';

describe('priced observation types', () => {
  it('are every type of the spec but SPAN and EVENT, in the spec order', () => {
    expect(PRICED_OBSERVATION_TYPES).toEqual(ObservationTypeValues.filter((t) => t !== 'SPAN' && t !== 'EVENT'));
    expect(PRICED_OBSERVATION_TYPES).toContain('GENERATION');
  });

  it('answers for the wire spelling and the lower-case OTel spelling alike', () => {
    for (const t of ObservationTypeValues) {
      const priced = t !== 'SPAN' && t !== 'EVENT';
      expect(isPricedType(t), t).toBe(priced);
      expect(isPricedType(t.toLowerCase()), t).toBe(priced);
    }
  });
});
