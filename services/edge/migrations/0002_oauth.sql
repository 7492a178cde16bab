-- The OAuth authorization server's state (oidc-provider models: sessions, interactions, clients,
-- grants, codes, access and refresh tokens), shared by every edge replica and kept across restarts.
create table oauth_store (
  kind text not null,
  id text not null,
  payload jsonb not null,
  grant_id text,
  uid text,
  user_code text,
  account_id text,
  expires_at timestamptz,
  primary key (kind, id)
);
create index oauth_store_grant on oauth_store (grant_id) where grant_id is not null;
create index oauth_store_uid on oauth_store (uid) where uid is not null;
create index oauth_store_account on oauth_store (account_id) where account_id is not null;
create index oauth_store_expires on oauth_store (expires_at) where expires_at is not null;

-- The signing keys (JWKS with private parts) and cookie keys: generated once by the first replica.
create table oauth_keys (
  id int primary key check (id = 1),
  jwks jsonb not null,
  cookie_keys jsonb not null,
  created_at timestamptz not null default now()
);
