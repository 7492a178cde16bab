import { ok, review_note, write_note } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import { noteState } from '../domain/note-view.ts';
import { writeNote } from '../note-writer.ts';
import { noteNotFound, reviewRefused } from '../refusals.ts';
import type { CoursesDeps } from '../store.ts';

/** write_note (cabinet): the curator's note on a place of the active release; the agent moves next. */
export function writeNoteHandler({ store: s }: CoursesDeps) {
  return endpoint(write_note, async (args, ctx) => {
    const who = author(ctx);
    return writeNote(s, { ...args, author: who.user, waiting_on: 'agent' });
  });
}

/**
 * review_note (cabinet): the curator's move on a note. reply keeps the status and hands the turn
 * to the agent; accept closes the note (waiting on nobody); return reopens it with the curator's
 * answer in the thread, for the agent (spec: «вернёт — она снова откроется в course_notes с его
 * ответом»). An accepted note takes no more moves: the agent may still reply, the curator reads it.
 */
export function reviewNoteHandler({ transaction }: CoursesDeps) {
  return endpoint(review_note, async (args, ctx) => {
    const who = author(ctx);
    const text = args.text?.trim() ?? '';
    return transaction(async (s) => {
      const note = await s.notes.lock(args.note);
      if (!note) return noteNotFound(args.note);
      if (note.status === 'accepted') return reviewRefused(note.id, 'accepted');
      if (args.action !== 'accept' && !text) return reviewRefused(note.id, 'empty_text');
      if (text) await s.notes.addReply(note.id, who.user, text);
      const next =
        args.action === 'accept'
          ? await s.notes.setState(note.id, 'accepted', null)
          : await s.notes.setState(note.id, args.action === 'return' ? 'open' : note.status, 'agent');
      return ok(noteState(next));
    });
  });
}
