import { Migration } from '@mikro-orm/migrations';

// Ingestion's evaluation jobs arrive here first: one row per batch, holding that batch's jobs as a
// JSON array, appended in the statement that stores the batch. The evaluation worker admits them
// into evaluation_jobs (store/evaluation-jobs.ts admitJobs). A job row costs PostgreSQL its heap
// tuple, three index entries and a speculative insertion for ON CONFLICT: ~15 us a row in pgbench
// (10-row statements, 20,000 of them, synchronous_commit off), ~0.26 ms a statement against
// 0.11 for the same select without the insert; that was most of what an evaluation rule at
// sampling 0.1 cost ingestion. An intake row is one tuple and one entry at the right edge of an
// identity index, whatever the batch's number of jobs.
export class Migration20261129000025EvaluationIntake extends Migration {
  override up(): void {
    this.addSql(`create table if not exists evaluation_intake (
      seq bigint generated always as identity primary key,
      project_id text not null,
      jobs json not null,
      created_at timestamptz not null default now()
    )`);
  }
}
