-- Local read model of course cards, built only from evt.courses.course_card_changed.
-- State transfer: the card with the highest revision wins, whatever order events arrive in.
create table catalog (
  course text primary key,
  revision integer not null,
  course_key text,
  title text not null,
  summary text not null default '',
  description text not null default '',
  status text not null check (status in ('draft', 'upcoming', 'published')),
  objectives jsonb not null default '[]',
  release text,
  version integer,
  -- [{id, key, title, chapter}] of the active release, in course order.
  lessons jsonb not null default '[]',
  lessons_total integer not null default 0,
  changed_at timestamptz not null,
  updated_at timestamptz not null default now()
);
create index catalog_listed on catalog (title, course) where status in ('upcoming', 'published');

-- Which courses an organization lets its members take (its catalog).
create table org_courses (
  course text not null,
  org text not null references organizations (name) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (course, org)
);
create index org_courses_org on org_courses (org);

-- Programs: chains of courses; `ordered` locks a course until the previous one is completed (for members).
create table programs (
  key text primary key,
  title text not null,
  ordered boolean not null default false,
  created_at timestamptz not null default now()
);

create table program_courses (
  program text not null references programs (key) on delete cascade,
  position integer not null,
  course text not null,
  primary key (program, position),
  unique (program, course)
);
create index program_courses_course on program_courses (course);

create table program_members (
  program text not null references programs (key) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (program, user_id)
);
create index program_members_user on program_members (user_id);

-- One enrollment per user, course and space ('personal' or an organization name).
-- Progress is the user's (shared across spaces): lessons service reports it into every row of the course.
create table enrollments (
  user_id text not null references users (id) on delete cascade,
  course text not null,
  space text not null,
  organization text generated always as (nullif(space, 'personal')) stored,
  self_enrolled boolean not null,
  -- Assignment fields: null for a self-enrollment.
  mandatory boolean,
  deadline timestamptz,
  enrolled_at timestamptz not null default now(),
  lessons_done integer not null default 0,
  completed_at timestamptz,
  primary key (user_id, course, space)
);
create index enrollments_org on enrollments (organization, course) where organization is not null;
create index enrollments_course on enrollments (course);

-- Release subscriptions of announcements: one e-mail per subscriber, ever (notified_at).
create table subscriptions (
  user_id text not null references users (id) on delete cascade,
  course text not null,
  notify boolean not null default true,
  notified_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (user_id, course)
);
create index subscriptions_pending on subscriptions (course) where notify and notified_at is null;

-- Outbox of release e-mails: written in the transaction that marks subscriptions notified, relayed to BullMQ.
create table mail_outbox (
  id bigserial primary key,
  job_id text not null unique,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  enqueued_at timestamptz
);
create index mail_outbox_pending on mail_outbox (id) where enqueued_at is null;
