-- Sign-in at the edge's OAuth authorization server: an argon2id password hash per user (set by the
-- admin CLI), and the moment all the user's access was last revoked (OAuth tokens issued before it
-- are refused; API tokens are revoked in the same step).
alter table users add column password_hash text;
alter table users add column access_revoked_at timestamptz;
