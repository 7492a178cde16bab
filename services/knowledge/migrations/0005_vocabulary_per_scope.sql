-- Typo tolerance's vocabulary per scope instead of one for every tenant. With one vocabulary, the
-- k nearest lexemes of a misspelt word were taken from all tenants' notes and only then kept where
-- the caller's own notes have them: another organization's notes, full of lexemes nearer to the
-- typo, took every one of the k places, and the caller's own word was never reached (a tenant
-- could switch off another's typo tolerance). Now each lexeme belongs to the scope of the notes it
-- comes from, and the nearest are looked for only in the caller's scopes:
--   'p:<project>' for shared notes (user-doc), 'o:<owner>' for agent memory.
-- btree_gist lets one GiST index take the scope's equality and the trigram distance's ordering.
create extension if not exists btree_gist;

create table kb_vocabulary (
  scope text not null,
  word text not null,
  primary key (scope, word)
);

insert into kb_vocabulary (scope, word)
select distinct n.scope, l
from (
  select case when class = 'user-doc' then 'p:' || project::text else 'o:' || owner end as scope, tsv
  from notes where deleted_at is null) as n,
  unnest(tsvector_to_array(n.tsv)) as l
where n.scope is not null and length(l) between 3 and 40 and l !~ '[0-9_]';

create index kb_vocabulary_trgm on kb_vocabulary using gist (scope, word gist_trgm_ops);

-- kb_words stays for now, no longer read or written by this release: during a rolling update the
-- previous release's replicas still add every note write's lexemes to it in the write's own
-- transaction, and dropping it here would fail their writes until they are gone (and a rollback
-- to that release would find it). A later release's migration drops it. Lexemes those replicas
-- write meanwhile reach kb_vocabulary when their notes are next written or re-indexed.
