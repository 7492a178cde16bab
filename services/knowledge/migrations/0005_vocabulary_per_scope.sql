-- Typo tolerance's vocabulary per scope instead of one for every tenant. With one vocabulary, the
-- k nearest lexemes of a misspelt word were taken from all tenants' notes and only then kept where
-- the caller's own notes have them: another organization's notes, full of lexemes nearer to the
-- typo, took every one of the k places, and the caller's own word was never reached (a tenant
-- could switch off another's typo tolerance). Now each lexeme belongs to the scope of the notes it
-- comes from, and the nearest are looked for only in the caller's scopes:
--   's:<space>' for shared notes (user-doc; a member of a space searches all of its projects, so
--   a space is the unit, and a caller has a scope per space, not per project), 'o:<owner>' for
--   agent memory.
-- btree_gist lets one GiST index take the scope's equality and the trigram distance's ordering.
-- Notes in the trash are included: a restored note's lexemes are back without a write.
create extension if not exists btree_gist;

create table kb_vocabulary (
  scope text not null,
  word text not null,
  primary key (scope, word)
);

insert into kb_vocabulary (scope, word)
select distinct n.scope, l
from (
  select case when n.class = 'user-doc' then 's:' || p.space else 'o:' || n.owner end as scope, n.tsv
  from notes n left join projects p on p.id = n.project) as n,
  unnest(tsvector_to_array(n.tsv)) as l
where n.scope is not null and length(l) between 3 and 40 and l !~ '[0-9_]';

create index kb_vocabulary_trgm on kb_vocabulary using gist (scope, word gist_trgm_ops);

-- kb_words stays for now, no longer read or written by this release: during a rolling update the
-- previous release's replicas still add every note write's lexemes to it in the write's own
-- transaction, and dropping it here would fail their writes until they are gone (and a rollback
-- to that release would find it). The release that drops it fills kb_vocabulary again from all
-- notes first (the fill above is idempotent): lexemes that the previous release's replicas write
-- during the update reach kb_vocabulary then, or when their notes are next edited.
