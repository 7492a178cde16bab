-- The version of a user's access document (evt.enrollment.access_changed): bumped under the
-- user's row lock each time the document is sent, so a projection keeps the latest.
alter table users add column access_version bigint not null default 0;

-- One row once the access documents of every user were sent (first start after this migration):
-- the events stream then holds the whole state, and a projection replays it from the start.
create table access_announced (
  id int primary key check (id = 1),
  at timestamptz not null default now()
);
