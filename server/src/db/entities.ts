// Persistence mapping. Table layout is owned by the migrations in ./migrations; these
// schemas only map rows to objects for the entity manager.
import { defineEntity, p } from '@mikro-orm/core';

export const Project = defineEntity({
  name: 'Project',
  tableName: 'projects',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.string().primary(),
    projectId: p.string(),
    publicKey: p.string(),
    // sha256 of the secret: secrets are 256-bit random tokens, so a fast hash is enough
    // and lets every request find its key with one indexed lookup
    secretHash: p.string(),
    displaySecretKey: p.string(),
    note: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const ModelRow = defineEntity({
  name: 'ModelRow',
  tableName: 'models',
  properties: {
    id: p.string().primary(),
    projectId: p.string().nullable(),
    modelName: p.string(),
    matchPattern: p.string(),
    startDate: p.datetime().nullable(),
    unit: p.string().nullable(),
    tokenizerId: p.string().nullable(),
    tokenizerConfig: p.json<Record<string, unknown>>().nullable(),
    // for managed rows: fingerprint of the shipped definition, so start-up sync skips unchanged ones
    contentHash: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export const PricingTierRow = defineEntity({
  name: 'PricingTierRow',
  tableName: 'pricing_tiers',
  properties: {
    id: p.string().primary(),
    modelId: p.string(),
    name: p.string(),
    isDefault: p.boolean(),
    priority: p.integer(),
    conditions: p.json<unknown[]>(),
    // USD per unit by usage type (jsonb numbers are exact decimals at rest)
    prices: p.json<Record<string, number>>(),
  },
});

export const entities = [Project, ApiKey, ModelRow, PricingTierRow];
