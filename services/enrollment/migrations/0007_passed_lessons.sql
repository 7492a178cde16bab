-- Which lessons the student has passed (keys, reported by lessons with lesson_passed), so
-- list_my_courses' next_lesson is the first lesson in course order not yet passed rather than the
-- lesson at the position "number passed". Null: no report carried the keys yet.
alter table enrollments add column passed_lessons text[];

create or replace function enrollment_inherit_progress() returns trigger language plpgsql
set search_path from current as $$
declare
  p record;
begin
  select e.lessons_done, e.completed_at, e.progress_at, e.passed_lessons into p
  from enrollments e
  where e.user_id = new.user_id and e.course = new.course
  order by e.progress_at desc nulls last
  limit 1;
  if found then
    new.lessons_done := p.lessons_done;
    new.completed_at := p.completed_at;
    new.progress_at := p.progress_at;
    new.passed_lessons := p.passed_lessons;
  end if;
  return new;
end $$;
