import { Migration } from '@mikro-orm/migrations';

// The durable queue of evaluation jobs: ingestion inserts a job for each matching
// rule assignment in the transaction that stores the observation, so a crash between them loses
// nothing. A job's id is derived from (rule, assignment, trace, observation): re-ingesting the
// observation resets the same job to PENDING rather than adding one. Workers claim due jobs
// with FOR UPDATE SKIP LOCKED and hold them under a lease; a lease that runs out (a crashed
// worker) makes the job claimable again.
export class Migration20261122000013EvaluationJobs extends Migration {
  override up(): void {
    this.addSql(`create table evaluation_jobs (
      project_id text not null references projects (id) on delete cascade,
      id text not null,
      rule_id text not null,
      assignment_id text not null,
      evaluator_id text not null,
      trace_id text not null,
      observation_id text not null,
      status text not null,
      attempts integer not null default 0,
      run_after timestamptz not null default now(),
      lease_until timestamptz,
      first_attempt_at timestamptz,
      error text,
      score_id text,
      execution_trace_id text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (project_id, id)
    )`);
    this.addSql(`create index evaluation_jobs_due on evaluation_jobs (run_after) where status in ('PENDING', 'DELAYED', 'RUNNING')`);
    this.addSql('create index evaluation_jobs_rule on evaluation_jobs (project_id, rule_id, created_at desc, id)');
  }
}
