import { Migration } from '@mikro-orm/migrations';

// The hourly roll-up the metrics engine reads for additive measures over (type, name,
// environment, model): exact numeric sums, and for each nullable measure the count of rows
// that have it (so avg and "sum of nothing is null" come out as from the base table).
// Ingestion keeps it in step in the batch's own transaction (store/rollups.ts); the backfill
// below covers observations stored before it existed.
export class Migration20261122000008ObservationHourly extends Migration {
  override up(): void {
    this.addSql(`create table observation_hourly (
      project_id text not null,
      hour timestamptz not null,
      type text not null,
      name text,
      environment text not null,
      model text,
      count bigint not null default 0,
      latency_ms numeric not null default 0,
      latency_count bigint not null default 0,
      input_usage numeric not null default 0,
      output_usage numeric not null default 0,
      total_usage numeric not null default 0,
      input_cost numeric not null default 0,
      input_cost_count bigint not null default 0,
      output_cost numeric not null default 0,
      output_cost_count bigint not null default 0,
      total_cost numeric not null default 0,
      total_cost_count bigint not null default 0
    )`);
    // name, environment and model are free text of any length, so the key holds their md5: an
    // index entry must fit 2,704 bytes. (A collision could only merge two groups of one project.)
    this.addSql(
      `create unique index observation_hourly_key on observation_hourly (project_id, hour, type, md5(name), md5(environment), md5(model)) nulls not distinct`,
    );
    this.addSql(`insert into observation_hourly
      select project_id, date_trunc('hour', start_time, 'UTC'), type, name, environment, model, count(*),
        coalesce(sum(extract(epoch from (end_time - start_time)) * 1000), 0), count(end_time),
        sum(input_usage), sum(output_usage), sum(total_usage),
        coalesce(sum(input_cost), 0), count(input_cost), coalesce(sum(output_cost), 0), count(output_cost),
        coalesce(sum(total_cost), 0), count(total_cost)
      from observations group by 1, 2, 3, 4, 5, 6`);
  }
}
