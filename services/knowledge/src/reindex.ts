import type { Logger } from '@studium/platform';
import { type Kysely, sql } from 'kysely';
import type { KnowledgeDb } from './db.ts';
import { addWords, INDEX_VERSION, tsvOf } from './repositories/note.repository.ts';

const BATCH = 200;

/**
 * Re-indexes notes written under an older index version (before the Kazakh stems and the
 * vocabulary: migration 0003), in batches of BATCH, each one short transaction. Runs in the
 * background after start so a large corpus does not delay readiness; until a note is re-indexed
 * its old vector still answers (Russian forms of Russian notes, hunspell forms of Kazakh ones).
 * `for update skip locked` lets replicas share the work and never waits on a note being edited
 * (the edit writes the new index itself). Only the index columns change: no version bump, no
 * revision, no event — the note's content is the same.
 */
export function startReindex(db: Kysely<KnowledgeDb>, hunspell: string | null, log: Logger) {
  let stopped = false;
  const batch = () =>
    db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ id: string; title: string; body: string }>`
        select id, title, body from notes where index_version < ${INDEX_VERSION}
        order by index_version, id limit ${BATCH} for no key update skip locked`.execute(trx);
      for (const n of rows) {
        await sql`update notes set tsv = ${tsvOf(hunspell, n.title, n.body)}, index_version = ${INDEX_VERSION}
          where id = ${n.id}`.execute(trx);
      }
      if (rows.length)
        await addWords(
          trx,
          rows.map((n) => n.id),
        );
      return rows.length;
    });
  const done = (async () => {
    let total = 0;
    try {
      for (let n = await batch(); n > 0 && !stopped; n = await batch()) total += n;
      if (total) log.info({ notes: total, version: INDEX_VERSION }, 'notes re-indexed for search');
    } catch (err) {
      // The next start takes it up again; search works meanwhile on the old vectors.
      if (!stopped) log.error({ err: (err as Error).message, reindexed: total }, 're-indexing notes failed');
    }
  })();
  return {
    /** Resolves when the re-indexing stopped or finished. */
    done,
    async stop() {
      stopped = true;
      await done;
    },
  };
}
