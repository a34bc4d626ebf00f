import { describe, expect, it } from 'vitest';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { createModelCatalog } from '../../src/caches/model-catalog.ts';
import type { StoredModel } from '../../src/domain/models/types.ts';

const model = (name: string): StoredModel => ({
  id: name,
  projectId: 'p',
  modelName: name,
  matchPattern: `^${name}$`,
  startDate: null,
  unit: 'TOKENS',
  tokenizerId: null,
  tokenizerConfig: null,
  createdAt: new Date(0),
  pricingTiers: [],
});
const em = {} as SqlEntityManager;

describe('model catalog', () => {
  it('reuses a matcher while the revision holds and reloads when it moves', async () => {
    let stored = [model('a')];
    let loads = 0;
    const catalog = createModelCatalog(async () => {
      loads++;
      return stored;
    });
    expect((await catalog.matcherFor(em, 'p', '1:1')).match('a')?.id).toBe('a');
    await catalog.matcherFor(em, 'p', '1:1');
    expect(loads).toBe(1);
    stored = [model('b')]; // changed by another instance: only the revision tells
    expect((await catalog.matcherFor(em, 'p', '2:1')).match('b')?.id).toBe('b');
    expect((await catalog.matcherFor(em, 'p', '2:1')).match('a')).toBeNull();
    expect(loads).toBe(2);
  });

  it('does not keep a failed load', async () => {
    let fail = true;
    const catalog = createModelCatalog(async () => {
      if (fail) throw new Error('connection lost');
      return [model('a')];
    });
    await expect(catalog.matcherFor(em, 'p', '1:0')).rejects.toThrow('connection lost');
    fail = false;
    expect((await catalog.matcherFor(em, 'p', '1:0')).match('a')?.id).toBe('a');
  });
});
