import { Migration } from '@mikro-orm/migrations';

// evaluation_jobs is written by ingestion's own statement (a job per sampled observation), so it is
// a hot table like those of migration 4, and its foreign key on project_id cost the same: a lookup
// and a KEY SHARE lock on the one project row every concurrent batch shares, for each job. With one
// rule at sampling 0.1 the ratio of ingestion's rate to that with no rule was 0.89-0.92 with the key
// and 0.93-0.98 without (bench/evaluation.ts, three runs each, 2026-11-29). A job only ever gets its
// project's id from the batch that enqueues it.
export class Migration20261129000024EvaluationJobsWithoutForeignKey extends Migration {
  override up(): void {
    this.addSql('alter table evaluation_jobs drop constraint if exists evaluation_jobs_project_id_fkey');
  }
}
