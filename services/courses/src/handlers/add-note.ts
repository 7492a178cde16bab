import { add_note } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import { writeNote } from '../note-writer.ts';
import type { CoursesDeps } from '../store.ts';

/** add_note: the agent's question to the curator on a place of the active release; the curator moves next. */
export function addNoteHandler({ store: s }: CoursesDeps) {
  return endpoint(add_note, async (args, ctx) => {
    const who = author(ctx);
    return writeNote(s, { ...args, author: who.user, waiting_on: 'author' });
  });
}
