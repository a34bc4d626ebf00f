import { Migration } from '@mikro-orm/migrations';

// Spend alerts (issue 26). An alert's definition (domain/alerts/types.ts, its webhook secret
// encrypted as connection secrets are) and when it is next due; each fanned-out group's state; and
// the deliveries its transitions made, each with the exact body every retry sends again, and a
// line per attempt (the delivery log). Instances sharing a database take due alerts and due
// deliveries under a lease (FOR UPDATE SKIP LOCKED), so each is evaluated or sent once.
export class Migration20261127000022Alerts extends Migration {
  override up(): void {
    this.addSql(`create table alerts (
      project_id text not null,
      id text not null,
      name text not null,
      definition jsonb not null,
      webhook_secret text not null,
      enabled boolean not null default true,
      next_eval_at timestamptz not null default now(),
      lease_until timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (project_id, id)
    )`);
    this.addSql(`create index alerts_due on alerts (next_eval_at) where enabled`);
    this.addSql(`create table alert_groups (
      project_id text not null,
      alert_id text not null,
      grp text not null,
      state text not null,
      value double precision,
      since timestamptz not null,
      evaluated_at timestamptz not null,
      primary key (project_id, alert_id, grp)
    )`);
    this.addSql(`create table alert_deliveries (
      project_id text not null,
      id text not null,
      alert_id text not null,
      grp text not null,
      event text not null,
      url text not null,
      body text not null,
      status text not null default 'pending',
      attempts int not null default 0,
      next_at timestamptz not null default now(),
      lease_until timestamptz,
      created_at timestamptz not null default now(),
      primary key (project_id, id)
    )`);
    this.addSql(`create index alert_deliveries_due on alert_deliveries (next_at) where status = 'pending'`);
    this.addSql(`create index alert_deliveries_alert on alert_deliveries (project_id, alert_id, created_at)`);
    this.addSql(`create table alert_delivery_attempts (
      project_id text not null,
      delivery_id text not null,
      attempt int not null,
      at timestamptz not null default now(),
      status_code int,
      error text,
      primary key (project_id, delivery_id, attempt)
    )`);
  }
}
