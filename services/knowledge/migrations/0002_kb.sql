-- The knowledge base of spec 004: projects, notes, revisions, links, aliases, trash, memory, activity.
create extension if not exists pg_trgm;

create table projects (
  id uuid primary key,
  space text not null,
  -- '' for the space's root project (its handle is the space name alone).
  slug text not null,
  title text not null,
  created_at timestamptz not null default now(),
  unique (space, slug)
);

-- Old handles of renamed projects (rename_project is link-safe).
create table project_aliases (
  handle text primary key,
  project uuid not null references projects (id) on delete cascade
);

create table notes (
  id uuid primary key,
  -- null for agent memory about the user (private domain).
  project uuid references projects (id) on delete cascade,
  class text not null check (class in ('user-doc', 'agent-memory')),
  -- The owner of agent memory; null for shared notes.
  owner text,
  category text,
  folder text not null default '',
  title text not null,
  body text not null,
  type text,
  tags text[] not null default '{}',
  frontmatter jsonb not null default '{}',
  version int not null default 1,
  lang text not null default 'simple',
  tsv tsvector not null,
  search_text text not null, -- the title (see searchText)
  embedding real[],
  created_by text not null,
  created_kind text not null,
  created_at timestamptz not null default now(),
  updated_by text not null,
  updated_kind text not null,
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  deleted_by text,
  check ((class = 'agent-memory') = (owner is not null))
);
create unique index notes_live_title on notes (project, lower(title)) where deleted_at is null and class = 'user-doc';
create unique index notes_memory_category on notes (owner, coalesce(project, '00000000-0000-0000-0000-000000000000'::uuid), category)
  where class = 'agent-memory' and deleted_at is null;
create index notes_folder on notes (project, folder, lower(title), id) where deleted_at is null;
create index notes_tsv on notes using gin (tsv);
create index notes_trgm on notes using gin (search_text gin_trgm_ops);
create index notes_tags on notes using gin (tags);

-- Every version of every note, the first included.
create table note_revisions (
  note uuid not null references notes (id) on delete cascade,
  version int not null,
  action text not null,
  title text not null,
  folder text not null,
  body text not null,
  tags text[] not null,
  by_user text not null,
  by_kind text not null,
  at timestamptz not null default now(),
  primary key (note, version)
);

-- Former titles: [[Old title]] still resolves after rename_note.
create table note_aliases (
  project uuid not null references projects (id) on delete cascade,
  title_key text not null,
  note uuid not null references notes (id) on delete cascade,
  title text not null,
  primary key (project, title_key)
);

-- Typed edges. to_note null = a forward reference by title, resolved when such a note appears.
create table links (
  id uuid primary key,
  from_note uuid not null references notes (id) on delete cascade,
  type text not null,
  to_note uuid references notes (id) on delete cascade,
  to_title text,
  to_key text not null,
  -- 'tool' for link/link_many/create_note links; 'body' for [[wiki links]] in the text.
  origin text not null,
  created_at timestamptz not null default now(),
  unique (from_note, type, to_key, origin)
);
create index links_to on links (to_note);
create index links_pending on links (to_key) where to_note is null;

-- Who changed what, how and when (recent_activity, the delta of start_session).
create table activity (
  id bigserial primary key,
  note uuid not null references notes (id) on delete cascade,
  project uuid references projects (id) on delete cascade,
  owner text,
  action text not null,
  by_user text not null,
  by_kind text not null,
  at timestamptz not null default now()
);
create index activity_project on activity (project, id desc);

-- The caller's last start_session per project (the delta is "since then").
create table visits (
  user_id text not null,
  project uuid not null references projects (id) on delete cascade,
  at timestamptz not null,
  primary key (user_id, project)
);

-- Cosine similarity of two embeddings kept in a plain column (where pgvector is not installed).
create function cosine(a real[], b real[]) returns double precision
  language sql immutable parallel safe
  as $$
    select coalesce(sum(x * y) / nullif(sqrt(sum(x * x)) * sqrt(sum(y * y)), 0), 0)
    from unnest(a, b) as t(x, y)
  $$;
