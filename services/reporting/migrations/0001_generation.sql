-- The read models live in a generation schema (reporting_g<N>, see src/read-model.sql); this row
-- names the one the tools read and the live consumer writes. A rebuild fills a fresh generation
-- from the start of the stream and swaps this pointer under a row lock.
create table generation (
  id integer primary key default 1 check (id = 1),
  current text not null,
  built_at timestamptz not null default now()
);
