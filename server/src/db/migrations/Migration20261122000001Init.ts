import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000001Init extends Migration {
  override up(): void {
    this.addSql(`create table projects (
      id text primary key,
      name text not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql(`create table api_keys (
      id text primary key,
      project_id text not null references projects(id) on delete cascade,
      public_key text not null unique,
      secret_hash text not null unique,
      display_secret_key text not null,
      note text,
      created_at timestamptz not null default now()
    )`);
    this.addSql(`create table models (
      id text primary key,
      project_id text references projects(id) on delete cascade,
      model_name text not null,
      match_pattern text not null,
      start_date timestamptz,
      unit text,
      tokenizer_id text,
      tokenizer_config jsonb,
      content_hash text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    // one name per project (create checks it too; the index closes the race), one per managed list
    this.addSql(`create unique index models_project_name_uq on models (project_id, model_name) where project_id is not null`);
    this.addSql(`create unique index models_managed_name_uq on models (model_name) where project_id is null`);
    this.addSql(`create index models_list_idx on models (model_name, unit, start_date desc nulls last)`);
    this.addSql(`create table pricing_tiers (
      id text primary key,
      model_id text not null references models(id) on delete cascade,
      name text not null,
      is_default boolean not null,
      priority integer not null,
      conditions jsonb not null default '[]',
      prices jsonb not null default '{}',
      unique (model_id, priority),
      unique (model_id, name)
    )`);
  }
}
