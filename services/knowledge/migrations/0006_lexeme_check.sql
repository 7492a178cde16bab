-- Whether a live note the caller may search holds a lexeme: search's "known" check of each query
-- word and the filter of a typo's neighbours. Written inline as `exists (select 1 from notes where
-- tsv @@ … and <scope>)`, PostgreSQL planned it as a sequential scan that stops at the first match
-- (the GIN index's bitmap costs more than the first few hundred rows of a scan, and any lexeme is
-- estimated to be in a share of the notes), so a lexeme no note has — every misspelt word — read
-- every note: 100 ms per word on 10,000 notes, growing with the table (with sequential scans alone
-- off, a full scan of another index took its place). Planned here with bitmap scans only, the check
-- is a GIN lookup: 0.2-0.3 ms for an absent lexeme, 0.9 ms for one in 7,000 of the 10,000 notes (the
-- bitmap, then the heap until the first note of the scope). The scope is the one src/repositories/search.repository.ts (scopeSql) applies:
-- shared notes of the projects, and the owner's agent memory in no project or in one of them.
create function kb_scope_has(lexeme text, projects uuid[], who text) returns boolean
  language sql stable
  set enable_seqscan = off
  set enable_indexscan = off
  set enable_indexonlyscan = off
  as $$
    select exists (
      select 1 from notes
      where tsv @@ plainto_tsquery('simple', lexeme) and deleted_at is null and (
        (class = 'user-doc' and project = any(projects))
        or (class = 'agent-memory' and owner = who and (project is null or project = any(projects)))))
  $$;
