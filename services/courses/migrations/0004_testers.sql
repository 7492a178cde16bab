-- Testers of a course (issue 24): logins a person in the author cabinet let study the course
-- before it opens. They travel to enrollment on the course card.
alter table courses add column testers text[] not null default '{}';
