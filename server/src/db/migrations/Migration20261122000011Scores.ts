import { Migration } from '@mikro-orm/migrations';

// The public Scores API: scores keep the annotation queue they were written from, the trace of
// the evaluator run that wrote them, and the user who authored them (Langfuse's fields, null
// until something sets them). Lists filter by trace and look scores up by trace.
export class Migration20261122000011Scores extends Migration {
  override up(): void {
    this.addSql(`alter table scores add column queue_id text, add column execution_trace_id text, add column author_user_id text`);
    this.addSql(`create index scores_trace_idx on scores (project_id, trace_id)`);
  }
}
