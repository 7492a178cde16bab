-- When an OAuth grant's access token was last used (the «Подключённые ассистенты» page and
-- `studium grant list` show it). Set on Grant rows only, by the edge when it resolves a token,
-- at most once a minute per grant and replica; oidc-provider's upserts leave it alone.
alter table oauth_store add column last_used_at timestamptz;
