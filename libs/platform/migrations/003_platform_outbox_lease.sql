-- The outbox relay's lease (issue 32). A relay claims unpublished rows in one short statement by
-- setting `leased_until` (the database's clock) and `leased_by` (the relay), publishes them
-- outside any transaction, then marks them published (or gives back the ones that failed) in
-- another. A row is claimable while unpublished and not leased, or once its lease lapsed (a
-- relay that died or stalled between claim and mark). No index: the claim reads the unpublished
-- rows through outbox_unpublished, and an update of these columns alone stays HOT.
-- Nullable, no default: adding them rewrites nothing. A replica still on the old relay ignores
-- them, so during a rolling update a row may be published by both; the stream drops the second
-- copy (Nats-Msg-Id).
alter table outbox
  add column if not exists leased_until timestamptz,
  add column if not exists leased_by uuid;
