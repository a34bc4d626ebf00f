// Time granularity in one place (domain/metrics/granularity.ts): the spec's list, and what each bucket is.
import { describe, expect, it } from 'vitest';
import { MetricsGranularityValues } from '../../../generated/enums.ts';
import { GRANULARITIES, STRIDES, strideMs, wholeDays, type Bucket } from '../../src/domain/metrics/granularity.ts';
import { metricsSchema } from '../../src/domain/metrics/schema.ts';

const BUCKETS: Bucket[] = ['minute', 'hour', 'day', 'week', 'month'];

describe('granularity', () => {
  it("is the spec's MetricsGranularity, as the schema endpoint lists it", () => {
    expect(GRANULARITIES).toEqual(MetricsGranularityValues);
    expect(metricsSchema().granularities).toEqual(['auto', 'minute', 'hour', 'day', 'week', 'month']);
    expect(Object.keys(STRIDES)).toEqual(BUCKETS);
  });

  it('gives each fixed bucket its length, months none', () => {
    expect(BUCKETS.map(strideMs)).toEqual([60_000, 3_600_000, 86_400_000, 7 * 86_400_000, undefined]);
  });

  it('knows the buckets made of whole UTC days', () => {
    expect(BUCKETS.filter(wholeDays)).toEqual(['day', 'week', 'month']);
  });
});
