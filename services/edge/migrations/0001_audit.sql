-- Access violations (403 at /authoring, write tools called with read tokens, ...), kept for review.
create table audit_log (
  id bigserial primary key,
  at timestamptz not null default now(),
  kind text not null,
  user_id text,
  endpoint text not null,
  tool text,
  detail jsonb not null default '{}'
);
create index audit_log_at on audit_log (at desc);
