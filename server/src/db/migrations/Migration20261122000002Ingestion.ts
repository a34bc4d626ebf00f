import { Migration } from '@mikro-orm/migrations';

// Traces, observations and scores, laid out for the metrics engine: observations carry the
// trace fields metrics group by and numeric input/output/total usage and cost columns, so a
// time-range scan per project needs no join.
export class Migration20261122000002Ingestion extends Migration {
  override up(): void {
    this.addSql(`create table traces (
      project_id text not null references projects(id) on delete cascade,
      id text not null,
      timestamp timestamptz not null,
      name text, user_id text, session_id text, release text, version text, external_id text,
      environment text not null default 'default',
      tags text[] not null default '{}',
      public boolean not null default false,
      input jsonb, output jsonb, metadata jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (project_id, id)
    )`);
    this.addSql(`create index traces_time_idx on traces (project_id, timestamp)`);
    this.addSql(`create table observations (
      project_id text not null references projects(id) on delete cascade,
      id text not null,
      trace_id text,
      parent_observation_id text,
      type text not null,
      name text,
      environment text not null default 'default',
      level text not null default 'DEFAULT',
      status_message text,
      version text,
      start_time timestamptz not null,
      end_time timestamptz,
      completion_start_time timestamptz,
      model text,
      model_parameters jsonb,
      input jsonb, output jsonb, metadata jsonb,
      prompt_name text, prompt_version integer,
      provided_usage_details jsonb,
      provided_cost_details jsonb,
      usage_details jsonb not null default '{}',
      cost_details jsonb not null default '{}',
      input_usage numeric not null default 0,
      output_usage numeric not null default 0,
      total_usage numeric not null default 0,
      input_cost numeric,
      output_cost numeric,
      total_cost numeric,
      model_id text,
      usage_pricing_tier_id text,
      usage_pricing_tier_name text,
      prices_used jsonb,
      cost_status text not null default 'none',
      unpriced_usage_keys text[] not null default '{}',
      trace_name text, user_id text, session_id text, release text, trace_version text,
      tags text[] not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (project_id, id)
    )`);
    this.addSql(`create index observations_time_idx on observations (project_id, start_time)`);
    this.addSql(`create index observations_trace_idx on observations (project_id, trace_id)`);
    this.addSql(`create table scores (
      project_id text not null references projects(id) on delete cascade,
      id text not null,
      timestamp timestamptz not null,
      name text not null,
      value double precision,
      string_value text,
      data_type text not null,
      source text not null default 'API',
      trace_id text, observation_id text, session_id text, dataset_run_id text, config_id text,
      comment text, metadata jsonb,
      environment text not null default 'default',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (project_id, id)
    )`);
    this.addSql(`create index scores_time_idx on scores (project_id, timestamp)`);
    // event ids already applied: a replayed event is acknowledged and changes nothing
    this.addSql(`create table ingested_events (
      project_id text not null references projects(id) on delete cascade,
      event_id text not null,
      created_at timestamptz not null default now(),
      primary key (project_id, event_id)
    )`);
  }
}
