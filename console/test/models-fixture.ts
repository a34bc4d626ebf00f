// Model definitions for the Models page's tests (its list, its reprice panel): a plain project
// model with one Standard tier, changed where a test needs, and GET /models answering a list.
import { http, HttpResponse } from 'msw';
import type { Model } from '../../sdk/index.ts';
import { BASE_URL, mockServer } from './render.tsx';

export function model(over: Partial<Model>): Model {
  return {
    id: 'cm-x',
    modelName: 'x',
    matchPattern: '(?i)^(x)$',
    startDate: null,
    unit: 'TOKENS',
    inputPrice: 0.000001,
    outputPrice: 0.000002,
    totalPrice: null,
    tokenizerId: null,
    tokenizerConfig: null,
    isLangfuseManaged: false,
    createdAt: '2026-11-22T10:00:00.000Z',
    prices: { input: { price: 0.000001 }, output: { price: 0.000002 } },
    pricingTiers: [
      { id: 't0', name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: { input: 0.000001, output: 0.000002 } },
    ],
    ...over,
  };
}

/** the models list answers `models`, all on one page */
export function serveModels(models: Model[]) {
  mockServer.use(
    http.get(`${BASE_URL}/api/public/models`, () =>
      HttpResponse.json({ data: models, meta: { page: 1, limit: 100, totalItems: models.length, totalPages: 1 } }),
    ),
  );
}
