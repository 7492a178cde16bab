-- Each mail_outbox row is one recipient's delivery, and this schema is its truth: it stays open
-- until the mailer reports that the SMTP server accepted it (sent) or refused it for good
-- (rejected). The relay re-drives open deliveries whose BullMQ job ended without a report.
alter table mail_outbox
  add column outcome text check (outcome in ('sent', 'rejected')),
  add column settled_at timestamptz,
  add column detail text,
  -- How many times the delivery was enqueued again under a new job id (`<job_id>#<n>`).
  add column redrives int not null default 0;
-- Rows handed over before this migration were taken as delivered by the old mailer: keep them
-- closed, so an upgrade sends nothing twice.
update mail_outbox set outcome = 'sent', settled_at = enqueued_at where enqueued_at is not null;
create index mail_outbox_open on mail_outbox (enqueued_at) where outcome is null and enqueued_at is not null;
