-- Student notes (spec 000: remember, forget, my_notes, start_lesson's history).
-- A fact lives in every course (course = ''); project and observation live at a course.
create table student_notes (
  user_id text not null,
  course text not null default '',
  key text not null,
  kind text not null check (kind in ('fact', 'project', 'observation')),
  text text not null,
  -- The course's title when the note was written (my_notes: projects_elsewhere).
  course_title text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (user_id, course, key),
  check ((kind = 'fact') = (course = ''))
);
