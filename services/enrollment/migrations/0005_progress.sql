-- Progress is the student's, shared by every space (spec: a lesson passed personally is passed for
-- the company too). The lessons service reports it with evt.lessons.lesson_passed into every row
-- of the course; progress_at orders those reports, so a redelivered older one never rolls it back.
alter table enrollments add column progress_at timestamptz;

-- A new enrollment of a course the student already studies (a later assignment, an enrollment in
-- another space) starts from the progress they have; a trigger, so no write path can forget it.
create function enrollment_inherit_progress() returns trigger language plpgsql
set search_path from current as $$
declare
  p record;
begin
  select e.lessons_done, e.completed_at, e.progress_at into p
  from enrollments e
  where e.user_id = new.user_id and e.course = new.course
  order by e.progress_at desc nulls last
  limit 1;
  if found then
    new.lessons_done := p.lessons_done;
    new.completed_at := p.completed_at;
    new.progress_at := p.progress_at;
  end if;
  return new;
end $$;

create trigger enrollments_inherit_progress before insert on enrollments
for each row execute function enrollment_inherit_progress();
