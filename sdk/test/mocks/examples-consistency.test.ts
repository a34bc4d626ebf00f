// The spec's examples are what a frontend sees from the mocks: each page of a paginated example
// must agree with itself (its item count with its limit, page and total; its page count with its
// total), as a server's would.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listOperations } from '../../mocks/examples.ts';

const spec = JSON.parse(readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8'));

interface Page {
  data: unknown[];
  meta: { page: number; limit: number; totalItems: number; totalPages: number };
}
const isPage = (v: unknown): v is Page => {
  const m = (v as Page | null)?.meta;
  return (
    Array.isArray((v as Page | null)?.data) &&
    !!m &&
    ['page', 'limit', 'totalItems', 'totalPages'].every((k) => typeof m[k as keyof Page['meta']] === 'number')
  );
};

const pages: [string, Page][] = [];
for (const { operationId, operation } of listOperations(spec)) {
  for (const [status, response] of Object.entries(operation.responses ?? {}))
    for (const [name, example] of Object.entries(response?.content?.['application/json']?.examples ?? {}))
      if (isPage(example.value)) pages.push([`${operationId} ${status} ${name}`, example.value]);
}

describe('paginated examples', () => {
  it('are there to check', () => {
    expect(pages.length).toBeGreaterThan(5);
  });

  it.each(pages)('%s agrees with itself', (_name, { data, meta }) => {
    expect(meta.totalPages).toBe(Math.ceil(meta.totalItems / meta.limit));
    const expected =
      meta.page < meta.totalPages ? meta.limit : meta.page === meta.totalPages ? meta.totalItems - (meta.page - 1) * meta.limit : 0;
    expect(data).toHaveLength(expected);
  });
});
