-- Search statements whose plans must not depend on statistics.
--
-- Whether a live note the caller may search holds a lexeme: search's "known" check of each query
-- word and the filter of a typo's neighbours. Written inline as `exists (select 1 from notes where
-- tsv @@ … and <scope>)`, PostgreSQL planned it as a sequential scan that stops at the first match
-- (the GIN index's bitmap costs more than the first few hundred rows of a scan, and any lexeme is
-- estimated to be in a share of the notes), so a lexeme no note has — every misspelt word — read
-- every note: 100 ms per word on 10,000 notes, growing with the table (with sequential scans alone
-- off, a full scan of another index took its place). Planned here with bitmap scans only, the check
-- is a GIN lookup: 0.2-0.3 ms for an absent lexeme, 0.9 ms for one in 7,000 of the 10,000 notes (the
-- bitmap, then the heap until the first note of the scope). The scope's conditions stay outside
-- a fenced subquery (offset 0): a function's plan is generic, and with them inside, the planner
-- could take the bitmap of the scope's own indexes instead and read every note of a large scope.
-- The scope is the one src/repositories/search.repository.ts (scopeSql) applies: shared notes of
-- the projects, and the owner's agent memory in no project or in one of them.
create function kb_scope_has(lexeme text, projects uuid[], who text) returns boolean
  language sql stable
  set enable_seqscan = off
  set enable_indexscan = off
  set enable_indexonlyscan = off
  as $$
    select exists (
      select 1 from (
        select class, project, owner, deleted_at from notes
        where tsv @@ plainto_tsquery('simple', lexeme) offset 0) as n
      where deleted_at is null and (
        (class = 'user-doc' and project = any(projects))
        or (class = 'agent-memory' and owner = who and (project is null or project = any(projects)))))
  $$;

-- A scope's k nearest lexemes to a word, by trigram distance: the GiST index's ordered scan. Left
-- to the planner, a scope whose size it underestimated (no statistics yet, or a generic plan) was
-- read whole through a bitmap and sorted: 45 ms per word and scope for 7,000 lexemes, against well
-- under a millisecond for the ordered scan. Planned here with bitmap scans, sequential scans and
-- sorts off, the ordered scan is the only plan left.
create function kb_nearest(near text, in_scope text, k int) returns table (word text, distance real)
  language sql stable
  set enable_seqscan = off
  set enable_bitmapscan = off
  set enable_sort = off
  as $$
    select v.word, v.word <-> near from kb_vocabulary v
    where v.scope = in_scope order by v.word <-> near limit k
  $$;
