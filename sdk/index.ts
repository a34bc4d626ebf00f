// @tally/sdk: `new Tally({ baseUrl, publicKey, secretKey })` and the spec's types. The operations
// are generated from openapi/ by hey-api (generated/client); src/ adds auth, retries,
// typed errors and pagination around them.
export { Tally, createTallyClient, type TallyOptions, type TallyGroups } from './src/client.ts';
export { TallyError, TallyApiError, TallyNetworkError } from './src/errors.ts';
export { paginate, type ListFn, type PageItem, type PaginateParams } from './src/paginate.ts';
export type { RetryOptions } from './src/retry.ts';
export { TallySdk } from '../generated/client/sdk.gen.ts';
export type * from '../generated/client/types.gen.ts';
export type { Client, Options } from '../generated/client/client/index.ts';
export * from './src/usage.ts';
export type { MetricsCallOptions, MetricsDimensionValue, MetricsQueryInput, MetricsRow } from './src/readable.ts';
export { IngestionBatcher, type IngestionBatcherOptions, type IngestionFailure } from './src/ingestion-batcher.ts';
