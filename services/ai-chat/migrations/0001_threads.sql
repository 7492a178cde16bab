-- A teacher's conversations with the assistant (spec 001). Only the owner ever sees a thread.
create table threads (
  id uuid primary key,
  owner text not null,
  title text not null,
  created_at timestamptz not null default now(),
  -- When the last answer came (spec: updated_at); the creation time until then.
  updated_at timestamptz not null default now()
);
create index threads_owner_recent on threads (owner, updated_at desc, id desc);

create table messages (
  id uuid primary key,
  -- Monotonic order inside a thread (timestamps of one transaction tie).
  n bigint generated always as identity,
  thread_id uuid not null references threads (id) on delete cascade,
  role text not null check (role in ('user', 'assistant')),
  content text not null,
  -- The model that wrote an answer and the tokens it took (null for the teacher's messages).
  model text,
  tokens_in integer,
  tokens_out integer,
  created_at timestamptz not null default now()
);
create index messages_thread_order on messages (thread_id, n desc);
