import { add_note } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { Kysely } from 'kysely';
import { author } from '../access.ts';
import type { CoursesDb } from '../db.ts';
import { writeNote } from '../note-writer.ts';
import { store } from '../store.ts';

/** add_note: the agent's question to the curator on a place of the active release; the curator moves next. */
export function addNoteHandler(db: Kysely<CoursesDb>) {
  const s = store(db);
  return endpoint(add_note, async (args, ctx) => {
    const who = author(ctx);
    return writeNote(s, { ...args, author: who.user, waiting_on: 'author' });
  });
}
