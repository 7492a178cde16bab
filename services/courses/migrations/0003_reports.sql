-- Lesson sessions as lessons announces them (evt.lessons.session_started): report_issue finds the
-- student, course, lesson and space of a session here instead of asking lessons.
create table lesson_sessions (
  session text primary key,
  user_id text not null,
  course text not null,
  lesson text not null,
  lesson_key text not null,
  release text,
  space text not null,
  updated_at timestamptz not null default now()
);

-- Reports of students' agents to the course's authors (report_issue, resolve_report).
create table reports (
  id bigserial primary key,
  course text not null references courses (id),
  user_id text not null,
  session text not null,
  space text not null,
  lesson text,
  -- The lesson's key when reported: filters still find reports of a lesson a release removed.
  lesson_key text,
  lesson_title text,
  -- The course's active release when reported (null before the first release).
  release text references releases (id),
  kind text not null check (kind in ('stuck', 'misconception', 'material_issue', 'quiz_question_issue',
    'directive_mismatch', 'out_of_scope')),
  text text not null,
  objective text,
  question_key text,
  status text not null default 'new' check (status in ('new', 'in_progress', 'fixed', 'rejected', 'duplicate')),
  resolution text,
  resolved_at timestamptz,
  resolved_by text,
  duplicate_of bigint references reports (id),
  -- When start_lesson told the student of the closed report (closed_reports); null until then and
  -- again after every new closing.
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index reports_course on reports (course, created_at desc, id desc);
create index reports_course_lesson on reports (course, lesson_key, created_at desc);
create index reports_user on reports (user_id, created_at desc, id desc);
create index reports_undelivered on reports (user_id, course)
  where delivered_at is null and status in ('fixed', 'rejected', 'duplicate');
