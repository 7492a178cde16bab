-- The platform's tutor (issue 23): a student's conversation per lesson, in the web chat.
create table tutor_conversations (
  id uuid primary key,
  owner text not null,
  -- What the page opened: a course id or a lesson id (start_lesson's argument).
  lesson text not null,
  -- The lesson session start_lesson opened in channel web (null until the model started it).
  session text,
  title text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index tutor_conversations_owner_recent on tutor_conversations (owner, updated_at desc, id desc);

create table tutor_messages (
  id uuid primary key,
  n bigint generated always as identity,
  conversation_id uuid not null references tutor_conversations (id) on delete cascade,
  role text not null check (role in ('user', 'assistant', 'tool')),
  content text not null,
  -- An assistant message's tool calls ([{id, name, arguments}]), as the model sees them again.
  tool_calls jsonb,
  -- A tool message: which call it answers and which tool ran.
  tool_call_id text,
  tool_name text,
  created_at timestamptz not null default now()
);
create index tutor_messages_order on tutor_messages (conversation_id, n desc);
