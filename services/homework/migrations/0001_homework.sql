-- Course documents: one per student, course, space and document key (spec: «документ у каждого
-- пространства свой — один курс может дать два документа»). The content is what the student wrote,
-- by section: rows of `many` sections (ids A1, A2… from a counter, never reused) and fields of `one`.
create table documents (
  user_id text not null,
  course text not null,
  space text not null,
  artifact text not null,
  content jsonb not null default '{"sections": {}}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (user_id, course, space, artifact)
);
create index documents_course on documents (course, space);

-- Homework submissions: one per student, lesson and space. `version` is the current saved version
-- (null until the first save); every save is a row of `versions`, kept forever.
create table submissions (
  id text primary key,
  user_id text not null,
  course text not null,
  lesson text not null,
  lesson_key text not null,
  space text not null,
  organization text,
  -- The course's curators when last written (from the release): who reviews it.
  curators text[] not null default '{}',
  status text not null check (status in ('Assigned', 'Submitted', 'Returned', 'Accepted')),
  -- When the lesson was passed (lessons.lesson_passed); the due date counts from it.
  assigned_at timestamptz,
  due_at timestamptz,
  version integer,
  answer text,
  last_comment text,
  submitted_at timestamptz,
  updated_at timestamptz not null default now(),
  unique (user_id, lesson, space)
);
create index submissions_review on submissions (status, submitted_at);
create index submissions_user on submissions (user_id, space, updated_at desc);

-- Files of answers: the bytes are in the object store under `object`; kept forever.
create table files (
  id text primary key,
  submission text not null references submissions (id),
  object text not null unique,
  name text not null,
  type text not null,
  size bigint not null,
  sha256 text not null,
  created_at timestamptz not null default now()
);
create index files_submission on files (submission);

-- Every saved version: the answer and the files it had then.
create table versions (
  submission text not null references submissions (id),
  version integer not null,
  answer text,
  files text[] not null default '{}',
  by text not null,
  submitted_at timestamptz not null default now(),
  primary key (submission, version)
);

-- The journal: assigned, submitted, returned, accepted, acceptance_cancelled.
create table journal (
  id bigserial primary key,
  submission text not null references submissions (id),
  event text not null,
  actor text,
  version integer,
  comment text,
  at timestamptz not null default now()
);
create index journal_submission on journal (submission, id);

-- The space of the student's latest lesson session per course (lessons.session_started): course
-- tools without `space` work there (spec: «пространство начатого занятия по курсу»).
create table course_spaces (
  user_id text not null,
  course text not null,
  space text not null,
  at timestamptz not null,
  primary key (user_id, course)
);
