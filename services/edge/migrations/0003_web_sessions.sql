-- Sessions of the platform's web pages (student pages, tutor, author's cabinet): one row per
-- signed-in browser. Only the SHA-256 of the session id is kept, so a read of this table gives no
-- one a usable cookie.
create table web_sessions (
  id_hash text primary key,
  user_id text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index web_sessions_user on web_sessions (user_id, created_at desc);
create index web_sessions_expires on web_sessions (expires_at);
