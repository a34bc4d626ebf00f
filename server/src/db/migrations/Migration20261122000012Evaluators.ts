import { Migration } from '@mikro-orm/migrations';

// Evaluators and evaluation rules. An evaluator keeps one id across versions; each
// POST by name appends a version (prompt, output definition, model config, default mapping).
// The evaluator's blocked state (set by the execution engine when its model is unusable) makes
// every rule using it read `paused`. A rule holds its filters and sampling; its evaluators are
// assignments, each with an optional mapping override (null: inherit the evaluator's default).
export class Migration20261122000012Evaluators extends Migration {
  override up(): void {
    this.addSql(`create table evaluators (
      project_id text not null references projects (id) on delete cascade,
      id text not null primary key,
      name text not null,
      type text not null,
      latest_version integer not null,
      blocked_reason text,
      blocked_message text,
      blocked_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    this.addSql('create index evaluators_project_name on evaluators (project_id, name)');
    this.addSql('create index evaluators_project_updated on evaluators (project_id, updated_at desc, id desc)');
    this.addSql(`create table evaluator_versions (
      evaluator_id text not null references evaluators (id) on delete cascade,
      version integer not null,
      id text not null unique,
      prompt text,
      output_definition jsonb,
      model_config jsonb,
      mapping jsonb,
      source_code text,
      source_code_language text,
      created_at timestamptz not null default now(),
      primary key (evaluator_id, version)
    )`);
    this.addSql(`create table evaluation_rules (
      project_id text not null references projects (id) on delete cascade,
      id text not null primary key,
      name text not null,
      target text not null,
      filters jsonb not null default '[]',
      sampling numeric not null default 1,
      state text not null,
      delay_ms integer not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    this.addSql('create index evaluation_rules_project_created on evaluation_rules (project_id, created_at desc, id desc)');
    this.addSql('create index evaluation_rules_project_name on evaluation_rules (project_id, name)');
    this.addSql(`create table evaluation_rule_assignments (
      project_id text not null,
      id text not null primary key,
      rule_id text not null references evaluation_rules (id) on delete cascade,
      evaluator_id text not null references evaluators (id) on delete cascade,
      mapping jsonb,
      created_at timestamptz not null default now(),
      unique (rule_id, evaluator_id)
    )`);
    this.addSql('create index evaluation_rule_assignments_evaluator on evaluation_rule_assignments (evaluator_id)');
  }
}
