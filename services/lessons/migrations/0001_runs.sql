-- The active release of each course as lessons knows it: written by the release_published
-- consumer in the same transaction that moves or cancels open quiz attempts, so an attempt whose
-- release is older than this row was not seen by the publication (attempt_outdated).
create table active_releases (
  course text primary key,
  release text not null,
  version integer not null,
  updated_at timestamptz not null default now()
);

-- A lesson run: one per student and lesson (progress is shared by every space). A reset of the
-- student's progress archives the run (archived_at) and a fresh one starts next time.
create table runs (
  id text primary key,
  user_id text not null,
  -- The student's full name as the edge resolved it at the last start (goal_runs shows it).
  user_name text not null,
  course text not null,
  lesson_key text not null,
  -- The last title the lesson had when it was started (goal_runs, for lessons removed later).
  lesson_title text,
  status text not null default 'not_started'
    check (status in ('not_started', 'in_progress', 'covered', 'passed')),
  accepted_at timestamptz not null default now(),
  started_at timestamptz,
  covered_at timestamptz,
  passed_at timestamptz,
  passed_late boolean,
  resume_from text,
  archived_at timestamptz
);
create unique index runs_live on runs (user_id, course, lesson_key) where archived_at is null;
create index runs_course on runs (course, accepted_at desc);

-- A session: one run, in one space, over one channel. Closed when the lesson is passed in it;
-- abandoned when a later start_lesson replaces it after a long pause.
create table sessions (
  id text primary key,
  run_id text not null references runs (id),
  user_id text not null,
  course text not null,
  lesson_key text not null,
  space text not null,
  organization text,
  channel text not null check (channel in ('agent', 'web')),
  status text not null default 'open' check (status in ('open', 'closed', 'abandoned')),
  release text not null,
  started_at timestamptz not null default now(),
  last_activity_at timestamptz not null default now(),
  closed_at timestamptz,
  -- Signal kinds already said in this session (each once per session).
  signals jsonb not null default '[]'
);
create index sessions_user on sessions (user_id, started_at desc);
create index sessions_run on sessions (run_id);

-- The latest mark of each item of a run: a new mark replaces the previous one.
create table goal_marks (
  run_id text not null references runs (id),
  goal text not null,
  objective text not null,
  status text not null check (status in ('open', 'done', 'planned', 'not_needed')),
  evidence text,
  session_id text not null,
  marked_at timestamptz not null default now(),
  primary key (run_id, goal)
);

-- A quiz attempt with the questions as issued (including the correct options, never sent before
-- the attempt ends) and the threshold at its start.
create table quiz_attempts (
  id text primary key,
  run_id text not null references runs (id),
  session_id text not null,
  user_id text not null,
  course text not null,
  lesson_key text not null,
  number integer not null,
  release text not null,
  questions jsonb not null,
  threshold double precision not null,
  status text not null default 'open' check (status in ('open', 'finished', 'cancelled')),
  score double precision,
  passed boolean,
  cancel_reason text check (cancel_reason in ('quiz_changed', 'attempt_outdated', 'lesson_removed')),
  -- The agent was told of the cancellation (refusal or previous_attempt_cancelled): once only.
  cancel_reported boolean not null default false,
  started_at timestamptz not null default now(),
  finished_at timestamptz
);
create index quiz_attempts_run on quiz_attempts (run_id, started_at);
create unique index quiz_attempts_open on quiz_attempts (run_id) where status = 'open';
create index quiz_attempts_open_course on quiz_attempts (course) where status = 'open';

-- One answer per question of an attempt: the option chosen and the student's own words.
create table quiz_answers (
  attempt_id text not null references quiz_attempts (id),
  question text not null,
  answer text not null,
  student_words text not null,
  correct boolean not null,
  answered_at timestamptz not null default now(),
  primary key (attempt_id, question)
);
