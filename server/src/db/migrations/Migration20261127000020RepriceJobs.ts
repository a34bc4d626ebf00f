import { Migration } from '@mikro-orm/migrations';

// Reprice jobs (issue 25): each is its own audit record (who asked, when, the window, what it
// changed) and its own progress: the cursor (start time and id of the last generation done) and
// the running report are written in the transaction that reprices a batch, so a job taken over
// after a crash resumes exactly where the last committed batch ended.
export class Migration20261127000020RepriceJobs extends Migration {
  override up(): void {
    this.addSql(`create table reprice_jobs (
      project_id text not null,
      id text not null,
      status text not null default 'queued',
      dry_run boolean not null,
      from_ts timestamptz not null,
      to_ts timestamptz not null,
      model_ids text[],
      requested_by text not null,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz,
      lease_until timestamptz,
      cursor_time timestamptz,
      cursor_id text,
      scanned bigint not null default 0,
      changed bigint not null default 0,
      cost_before numeric not null default 0,
      cost_after numeric not null default 0,
      changes jsonb not null default '[]',
      error text,
      primary key (project_id, id)
    )`);
    this.addSql(`create index reprice_jobs_open_idx on reprice_jobs (created_at) where status in ('queued', 'running')`);
    this.addSql(`create index reprice_jobs_list_idx on reprice_jobs (project_id, created_at desc)`);
  }
}
