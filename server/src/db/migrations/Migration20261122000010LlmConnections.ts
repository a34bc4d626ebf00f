import { Migration } from '@mikro-orm/migrations';

// LLM connections (issue 9): one per (project, provider). The key and the extra headers are
// stored only as AES-256-GCM ciphertext (`v1:<iv>:<tag>:<ciphertext>`); the header names stay
// plain text, in the order given. `provider` is indexed: the spec caps it at 600 characters.
export class Migration20261122000010LlmConnections extends Migration {
  override up(): void {
    this.addSql(`create table llm_connections (
      project_id text not null references projects (id) on delete cascade,
      id text not null primary key,
      provider text not null,
      adapter text not null,
      display_secret_key text not null,
      secret_key_enc text not null,
      base_url text,
      custom_models text[] not null default '{}',
      with_default_models boolean not null default true,
      extra_headers_enc text,
      extra_header_keys text[] not null default '{}',
      config jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    this.addSql('create unique index llm_connections_project_provider on llm_connections (project_id, provider)');
    this.addSql('create index llm_connections_project_created on llm_connections (project_id, created_at desc, id desc)');
  }
}
