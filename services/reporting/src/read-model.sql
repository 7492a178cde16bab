-- Read models of one generation (schema reporting_g<N>), built only from events on the stream.
-- Every table is state transfer keyed by what the event names, and every update keeps the newest
-- `at`, so the order of delivery does not matter; `processed` makes a redelivery a no-op.

create table processed (msg_id text primary key);

create table users (
  id text primary key,
  full_name text not null,
  at timestamptz not null
);

create table organizations (
  name text primary key,
  title text not null,
  suspended boolean not null,
  at timestamptz not null
);

-- role null: the user left the organization (kept so an older "joined" cannot bring them back).
create table memberships (
  org text not null,
  user_id text not null,
  role text,
  at timestamptz not null,
  primary key (org, user_id)
);
create index memberships_user on memberships (user_id) where role is not null;

-- Course cards: title and the active release's lessons [{id, key, title}] and its document
-- {key, title, blocks_total} or null (courses.course_card_changed).
create table courses (
  course text primary key,
  revision integer not null,
  title text not null,
  lessons jsonb not null default '[]',
  lessons_total integer not null default 0,
  document jsonb
);

create table enrollments (
  user_id text not null,
  course text not null,
  space text not null,
  organization text,
  self_enrolled boolean not null,
  mandatory boolean,
  deadline timestamptz,
  enrolled_at timestamptz not null,
  assignment_at timestamptz,
  primary key (user_id, course, space)
);
create index enrollments_org on enrollments (organization, course) where organization is not null;

-- Progress is the user's in a course, shared by every space (spec: a lesson passed personally is
-- passed for the company too). last_activity: the newest lesson, quiz or homework event.
create table progress (
  user_id text not null,
  course text not null,
  lessons_passed integer not null default 0,
  lessons_total integer,
  completed boolean not null default false,
  -- Lessons the student can no longer pass, and nothing left to study (lesson_failed, lesson_passed).
  lessons_failed integer not null default 0,
  finished boolean not null default false,
  progress_at timestamptz,
  last_activity timestamptz,
  primary key (user_id, course)
);

create table sessions (
  session text primary key,
  user_id text not null,
  course text not null,
  lesson text not null,
  lesson_key text not null,
  space text not null,
  organization text,
  status text not null default 'in_progress',
  started_at timestamptz not null,
  -- [{key, text}] in lesson order (session_started).
  objectives jsonb not null default '[]',
  status_at timestamptz not null
);
create index sessions_user on sessions (user_id, started_at desc);

-- The newest status of each objective of a session (goal_marked's objective_status).
create table objective_statuses (
  session text not null,
  objective text not null,
  status text not null,
  at timestamptz not null,
  primary key (session, objective)
);

create table attempts (
  attempt text primary key,
  user_id text not null,
  course text not null,
  lesson text not null,
  lesson_key text not null,
  session text not null,
  space text not null,
  number integer not null,
  status text not null,
  score double precision not null,
  passed boolean not null,
  finished_at timestamptz not null
);
create index attempts_user on attempts (user_id, finished_at);

create table homework (
  user_id text not null,
  lesson text not null,
  space text not null,
  course text not null,
  lesson_key text not null,
  organization text,
  status text not null,
  version integer,
  due_at timestamptz,
  at timestamptz not null,
  primary key (user_id, lesson, space)
);

create table documents (
  user_id text not null,
  course text not null,
  space text not null,
  artifact text not null,
  organization text,
  title text not null,
  blocks_total integer not null,
  blocks_filled integer not null,
  at timestamptz not null,
  primary key (user_id, course, space, artifact)
);
