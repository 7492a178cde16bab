-- The projection of enrollment's access documents (evt.enrollment.access_changed, kept by the
-- `homework-access` consumer): course access is decided from it without asking enrollment.
create table access_students (
  user_id text primary key,
  -- The document's version: only a higher one replaces it.
  version bigint not null,
  doc jsonb not null
);

-- One row once the consumer had nothing pending (it replayed the stream): until then every
-- access check asks enrollment.course_access.
create table access_projection (
  id int primary key check (id = 1),
  ready_at timestamptz not null default now()
);
