-- The retention job deletes old published events and processed ids in batches by these columns.
create index if not exists outbox_published_at on outbox (published_at) where published_at is not null;
create index if not exists processed_events_processed_at on processed_events (processed_at);
