import { Migration } from '@mikro-orm/migrations';

// evaluation_jobs is written by ingestion's own statement (a job per sampled observation), so it is
// a hot table like those of migration 4, and its foreign key on project_id cost the same: a lookup
// and a KEY SHARE lock on the one project row every concurrent batch shares, for each job. With one
// rule at sampling 0.1 that was about half of what the rule cost ingestion (bench/evaluation.ts:
// the ratio to no rule 0.89-0.92 with it, see the commit). A job only ever gets its project's id
// from the batch that enqueues it.
export class Migration20261129000024EvaluationJobsWithoutForeignKey extends Migration {
  override up(): void {
    this.addSql('alter table evaluation_jobs drop constraint if exists evaluation_jobs_project_id_fkey');
  }
}
