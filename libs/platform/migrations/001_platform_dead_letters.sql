-- Dead letters: an event a consumer failed on its last allowed attempt (or could not decode) is
-- parked here, in the consumer's own schema, until an operator replays it (`studium dead-letters`).
create table if not exists dead_letters (
  id bigserial primary key,
  consumer text not null,
  -- The event's envelope id; null when the message could not be decoded.
  msg_id text,
  -- The subject on the wire (with the deployment's prefix): a replay publishes there again.
  subject text not null,
  payload text not null,
  error text not null,
  attempts integer not null,
  parked_at timestamptz not null default now(),
  replayed_at timestamptz
);
create index if not exists dead_letters_parked on dead_letters (id) where replayed_at is null;
