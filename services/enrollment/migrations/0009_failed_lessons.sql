-- Lessons the student can no longer pass (a required quiz with no attempt left, reported by lessons
-- with lesson_failed and lesson_passed) and when nothing was left to study in the course: a
-- finished course no longer holds back the next course of an ordered program, and
-- list_my_courses' next_lesson skips failed lessons (docs/decisions.md, the failed lesson).
alter table enrollments add column failed_lessons text[];
alter table enrollments add column finished_at timestamptz;

create or replace function enrollment_inherit_progress() returns trigger language plpgsql
set search_path from current as $$
declare
  p record;
begin
  select e.lessons_done, e.completed_at, e.progress_at, e.passed_lessons, e.failed_lessons, e.finished_at into p
  from enrollments e
  where e.user_id = new.user_id and e.course = new.course
  order by e.progress_at desc nulls last
  limit 1;
  if found then
    new.lessons_done := p.lessons_done;
    new.completed_at := p.completed_at;
    new.progress_at := p.progress_at;
    new.passed_lessons := p.passed_lessons;
    new.failed_lessons := p.failed_lessons;
    new.finished_at := p.finished_at;
  end if;
  return new;
end $$;
