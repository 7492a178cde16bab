-- Search index v1 (issue 21): every note is indexed with Russian/English stems, hunspell-kk lemmas
-- and the service's Kazakh stems together, whatever its language; a vocabulary of the corpus's
-- lexemes serves typo tolerance. Notes indexed before this (index_version 0) are re-indexed by the
-- service in the background at start (src/reindex.ts): a migration cannot run the Kazakh stemmer.

alter table notes add column index_version int not null default 0;
create index notes_index_version on notes (index_version, id);

-- The full-text vector of a note. kk_title and kk_body are the Kazakh stems the service computed
-- (space-separated); hunspell is the hunspell-kk configuration, null where it is not installed.
create function note_tsv(title text, body text, kk_title text, kk_body text, hunspell regconfig)
  returns tsvector language sql immutable parallel safe
  as $$
    select setweight(to_tsvector('pg_catalog.russian', title)
        || coalesce(to_tsvector(hunspell, title), ''::tsvector)
        || to_tsvector('pg_catalog.simple', kk_title), 'A')
      || setweight(to_tsvector('pg_catalog.russian', body)
        || coalesce(to_tsvector(hunspell, body), ''::tsvector)
        || to_tsvector('pg_catalog.simple', kk_body), 'B')
  $$;

-- Every distinct lexeme of the notes' vectors (a stem or a word, 3-40 letters): typo tolerance
-- looks here for the lexemes a misspelt query word is near. Lexemes of deleted or edited notes
-- stay: a stale one only widens a typo's expansion, which the notes themselves then must match.
create table kb_words (word text primary key);
create index kb_words_trgm on kb_words using gist (word gist_trgm_ops);
