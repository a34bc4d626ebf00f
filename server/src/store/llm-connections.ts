// LLM connections at rest. Secrets arrive here already encrypted; nothing in this file sees a
// plaintext key.
import type { SqlEntityManager } from '@mikro-orm/sql';
import { newId } from '../db/ids.ts';
import { kysely, sql, toDate, type Db, type Timestamp } from './sql.ts';
import type { LlmAdapter } from '../domain/llm-connections/validate.ts';

export interface StoredConnection {
  id: string;
  projectId: string;
  provider: string;
  adapter: LlmAdapter;
  displaySecretKey: string;
  secretKeyEnc: string;
  baseUrl: string | null;
  customModels: string[];
  withDefaultModels: boolean;
  extraHeadersEnc: string | null;
  extraHeaderKeys: string[];
  config: Record<string, string | boolean> | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ConnectionWrite extends Omit<StoredConnection, 'id' | 'projectId' | 'config' | 'createdAt' | 'updatedAt'> {
  /** undefined: keep the stored config on update (null on create) */
  config: Record<string, string | boolean> | undefined;
}

// a text[] from a JSON array: the same on both drivers, whatever the strings hold
const textArray = (values: string[]) => sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;

const asArray = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** a row of COLUMNS */
interface ConnectionRow {
  id: string;
  project_id: string;
  provider: string;
  adapter: LlmAdapter;
  display_secret_key: string;
  secret_key_enc: string;
  base_url: string | null;
  custom_models: string[];
  with_default_models: boolean;
  extra_headers_enc: string | null;
  extra_header_keys: string[];
  /** jsonb: parsed by the driver, or its text */
  config: StoredConnection['config'] | string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

function fromRow(r: ConnectionRow): StoredConnection {
  return {
    id: r.id,
    projectId: r.project_id,
    provider: r.provider,
    adapter: r.adapter,
    displaySecretKey: r.display_secret_key,
    secretKeyEnc: r.secret_key_enc,
    baseUrl: r.base_url ?? null,
    customModels: asArray(r.custom_models),
    withDefaultModels: Boolean(r.with_default_models),
    extraHeadersEnc: r.extra_headers_enc ?? null,
    extraHeaderKeys: asArray(r.extra_header_keys),
    config: typeof r.config === 'string' ? (JSON.parse(r.config) as StoredConnection['config']) : (r.config ?? null),
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
  };
}

// array columns as JSON so both drivers hand back plain arrays
const COLUMNS = sql`id, project_id, provider, adapter, display_secret_key, secret_key_enc, base_url,
  to_jsonb(custom_models) as custom_models, with_default_models, extra_headers_enc,
  to_jsonb(extra_header_keys) as extra_header_keys, config, created_at, updated_at`;

export async function listConnections(em: SqlEntityManager, projectId: string, page: number, limit: number) {
  const db = kysely(em);
  const { rows } = await sql<ConnectionRow>`select ${COLUMNS} from llm_connections where project_id = ${projectId}
    order by created_at desc, id desc limit ${limit} offset ${(page - 1) * limit}`.execute(db);
  const { rows: count } = await sql<{ n: string }>`select count(*) as n from llm_connections where project_id = ${projectId}`.execute(db);
  return { connections: rows.map(fromRow), total: Number(count[0]!.n) };
}

export async function getConnection(em: SqlEntityManager, projectId: string, id: string): Promise<StoredConnection | null> {
  const { rows } = await sql<ConnectionRow>`select ${COLUMNS} from llm_connections where project_id = ${projectId} and id = ${id}`.execute(
    kysely(em),
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function getConnectionByProvider(em: SqlEntityManager, projectId: string, provider: string): Promise<StoredConnection | null> {
  const { rows } =
    await sql<ConnectionRow>`select ${COLUMNS} from llm_connections where project_id = ${projectId} and provider = ${provider}`.execute(
      kysely(em),
    );
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Insert or update by (project, provider); `created` tells which. */
export async function upsertConnection(
  em: SqlEntityManager,
  projectId: string,
  w: ConnectionWrite,
): Promise<{ connection: StoredConnection; created: boolean }> {
  const keepConfig = w.config === undefined;
  // `inserted`: true/false, or 't'/'f' from a driver that leaves booleans as text
  const { rows } = await sql<
    ConnectionRow & { inserted: boolean | string }
  >`insert into llm_connections as c (project_id, id, provider, adapter, display_secret_key, secret_key_enc,
      base_url, custom_models, with_default_models, extra_headers_enc, extra_header_keys, config, created_at, updated_at)
    values (${projectId}, ${newId()}, ${w.provider}, ${w.adapter}, ${w.displaySecretKey}, ${w.secretKeyEnc}, ${w.baseUrl},
      ${textArray(w.customModels)}, ${w.withDefaultModels}, ${w.extraHeadersEnc}, ${textArray(w.extraHeaderKeys)},
      ${keepConfig ? null : JSON.stringify(w.config)}::jsonb, clock_timestamp(), clock_timestamp())
    on conflict (project_id, provider) do update set
      adapter = excluded.adapter, display_secret_key = excluded.display_secret_key, secret_key_enc = excluded.secret_key_enc,
      base_url = excluded.base_url, custom_models = excluded.custom_models, with_default_models = excluded.with_default_models,
      extra_headers_enc = excluded.extra_headers_enc, extra_header_keys = excluded.extra_header_keys,
      config = case when ${keepConfig} then c.config else excluded.config end,
      updated_at = clock_timestamp()
    returning ${COLUMNS}, (xmax = 0) as inserted`.execute(kysely(em));
  const r = rows[0]!;
  return { connection: fromRow(r), created: r.inserted === true || r.inserted === 't' };
}

export async function deleteConnection(em: SqlEntityManager, projectId: string, id: string): Promise<boolean> {
  const result = await sql`delete from llm_connections where project_id = ${projectId} and id = ${id}`.execute(kysely(em));
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** Every connection's ciphertexts (all projects), for re-encryption under a new key. */
export async function allCiphertexts(db: Db): Promise<{ id: string; secretKeyEnc: string; extraHeadersEnc: string | null }[]> {
  const { rows } = await sql<
    Pick<ConnectionRow, 'id' | 'secret_key_enc' | 'extra_headers_enc'>
  >`select id, secret_key_enc, extra_headers_enc from llm_connections order by id`.execute(db);
  return rows.map((r) => ({ id: r.id, secretKeyEnc: r.secret_key_enc, extraHeadersEnc: r.extra_headers_enc ?? null }));
}

export async function rewriteCiphertexts(db: Db, id: string, secretKeyEnc: string, extraHeadersEnc: string | null): Promise<void> {
  await sql`update llm_connections set secret_key_enc = ${secretKeyEnc}, extra_headers_enc = ${extraHeadersEnc} where id = ${id}`.execute(
    db,
  );
}
