-- Courses: drafts, announcements and published courses. A course gets its program, card and
-- curators only from a release; before the first release it is a card for an announcement.
create table courses (
  id text primary key,
  -- The course key of the release map; null until the first release (or attach_to) binds one.
  course_key text unique,
  title text not null,
  summary text not null,
  description text not null,
  promise text,
  -- Goals of an announcement of a course without release (a release shows its chapter titles).
  objectives jsonb not null default '[]',
  status text not null default 'draft' check (status in ('draft', 'upcoming', 'published')),
  created_by text not null,
  -- Logins of the curators who lead the course: the creator, then the release's curators.
  instructors text[] not null default '{}',
  -- Lessons a course imported from the previous LMS has without any release (built by hand there).
  legacy_lessons integer not null default 0,
  -- Monotonic per course: every change of the catalog card bumps it (course_card_changed.revision).
  card_revision integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index courses_created on courses (created_at desc, id desc);

-- Immutable releases. Content is kept only for the active one; older versions keep their record
-- (digest, commit) so the author can find them in git.
create table releases (
  id text primary key,
  course text not null references courses (id),
  version integer not null,
  digest text not null,
  commit text,
  document_key text,
  lesson_count integer not null,
  published_at timestamptz not null default now(),
  published_by text not null,
  active boolean not null default false,
  content jsonb,
  warnings jsonb not null default '[]',
  unique (course, digest),
  unique (course, version)
);
create unique index releases_active on releases (course) where active;

-- Curator notes on places of a release (add_note, and notes written in the author cabinet).
create table notes (
  id text primary key,
  course text not null references courses (id),
  target text not null,
  -- The lesson of the place when written: filters still find notes of a removed lesson.
  lesson_key text,
  release text references releases (id),
  version integer,
  quote text,
  text text not null,
  author text not null,
  status text not null default 'open' check (status in ('open', 'done', 'accepted')),
  waiting_on text check (waiting_on in ('agent', 'author')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index notes_course on notes (course, status, created_at);
create index notes_course_lesson on notes (course, lesson_key, created_at);

create table note_replies (
  id bigserial primary key,
  note text not null references notes (id),
  author text not null,
  text text not null,
  created_at timestamptz not null default now()
);
create index note_replies_note on note_replies (note, id);
