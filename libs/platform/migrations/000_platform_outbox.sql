-- Transactional outbox: an event row is written in the same transaction as the change it describes.
create table if not exists outbox (
  id bigserial primary key,
  subject text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  published_at timestamptz
);
create index if not exists outbox_unpublished on outbox (id) where published_at is null;

-- Idempotent consumers: a message id is processed once per consumer, in the transaction of its effects.
create table if not exists processed_events (
  consumer text not null,
  msg_id text not null,
  processed_at timestamptz not null default now(),
  primary key (consumer, msg_id)
);
