-- Users with platform roles; id is the login (an e-mail, as Frappe names users).
create table users (
  id text primary key,
  full_name text not null,
  roles text[] not null default '{}',
  -- The selected space, shared with the web UI: 'personal' or an organization name.
  selected_space text not null default 'personal',
  created_at timestamptz not null default now()
);

create table organizations (
  name text primary key,
  title text not null,
  suspended boolean not null default false,
  created_at timestamptz not null default now()
);

create table memberships (
  org text not null references organizations (name) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  role text not null check (role in ('manager', 'member')),
  created_at timestamptz not null default now(),
  primary key (user_id, org)
);
create index memberships_org on memberships (org);

-- Opaque API tokens, stored as SHA-256 of the secret: a database leak does not leak tokens.
create table api_tokens (
  id text primary key,
  user_id text not null references users (id) on delete cascade,
  token_hash text not null unique,
  label text not null default '',
  scope text not null check (scope in ('read', 'write')),
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index api_tokens_user on api_tokens (user_id);
