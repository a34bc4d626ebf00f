import { Migration } from '@mikro-orm/migrations';

// Which buckets a generation's cost priced without a price of their own (under another spelling
// of the bucket, or at the parent's rate), so the stored cost explains itself after a price change.
export class Migration20261125000016UsagePricedAs extends Migration {
  override up(): void {
    this.addSql(`alter table observations add column usage_priced_as jsonb`);
  }
}
