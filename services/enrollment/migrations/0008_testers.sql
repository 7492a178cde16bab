-- Testers (issue 24): the course card carries the logins that may study a course before it opens;
-- an enrollment made through that grant is marked, so revoking the grant closes it again while the
-- course is still not open (an open course's enrollments are everyone's).
alter table catalog add column testers text[] not null default '{}';
alter table enrollments add column tester boolean not null default false;
