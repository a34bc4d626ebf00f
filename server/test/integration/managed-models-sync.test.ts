// The shipped model list as an upgrade meets it: a database that holds an older list (here: one
// model's tokenizer and a tier's price changed, one model gone) is brought to the new one at start,
// with the frozen definitions the server ships. A crash here stops every upgraded server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/orm.ts';
import { buildManagedModels } from '../../src/domain/managed-models/index.ts';
import type { ModelDefinition } from '../../src/domain/models/types.ts';
import { syncManagedModels } from '../../src/store/managed-models-sync.ts';
import { sql } from '../../src/store/sql.ts';

let db: Database;
beforeAll(async () => {
  db = await openDatabase({ databaseUrl: null, dataDir: 'memory://' });
});
afterAll(async () => {
  await db.close();
});

describe('managed model sync', () => {
  it('replaces changed models with their tiers, removes dropped ones, and writes nothing the second time', async () => {
    const shipped = buildManagedModels(); // frozen, as the server holds them
    expect(Object.isFrozen(shipped[0])).toBe(true);
    const target = shipped.find((d) => d.modelName === 'gpt-4.1')!;
    // an older release: gpt-4.1 counted as gpt-4, at another price, and one extra model since dropped
    const older: ModelDefinition[] = shipped.map((d) =>
      d.id !== target.id
        ? d
        : {
            ...d,
            tokenizerConfig: { tokenizerModel: 'gpt-4', tokensPerMessage: 3, tokensPerName: 1 },
            pricingTiers: d.pricingTiers.map((t) => ({ ...t, prices: { ...t.prices, input: 1 } })),
          },
    );
    older.push({
      ...shipped[1]!,
      id: 'managed_dropped-model',
      modelName: 'dropped-model',
      matchPattern: '(?i)^(dropped-model)$',
      pricingTiers: [],
    });
    await syncManagedModels(db.em(), older);

    const result = await syncManagedModels(db.em(), shipped);
    expect(result).toEqual({ inserted: 0, updated: 1, deleted: 1, unchanged: shipped.length - 1 });
    const k = db.em().getKysely() as any;
    const { rows } = await sql<any>`select tokenizer_config from models where id = ${target.id}`.execute(k);
    expect(typeof rows[0].tokenizer_config === 'string' ? JSON.parse(rows[0].tokenizer_config) : rows[0].tokenizer_config).toEqual(
      target.tokenizerConfig,
    );
    const tiers = await sql<any>`select count(*) as n from pricing_tiers where model_id = ${target.id}`.execute(k);
    expect(Number(tiers.rows[0].n)).toBe(target.pricingTiers.length);

    expect(await syncManagedModels(db.em(), shipped)).toEqual({ inserted: 0, updated: 0, deleted: 0, unchanged: shipped.length });
  });
});
