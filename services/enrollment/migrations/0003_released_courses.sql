-- Courses whose release e-mails have gone out (notify_subscribers ran). A subscription arriving
-- after that, while the catalog still shows the announcement, is refused course_not_upcoming
-- instead of waiting for an e-mail that will never come. Both writers take the same per-course
-- advisory lock, so the check and the notification never interleave.
create table released_courses (
  course text primary key,
  released_at timestamptz not null default now()
);
