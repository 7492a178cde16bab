import { ok, resolve_note } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import { noteState } from '../domain/note-view.ts';
import { invalidTransition, noteNotFound } from '../refusals.ts';
import type { CoursesDeps } from '../store.ts';

/** resolve_note: an open note becomes done with a comment in the thread; the curator checks it next. */
export function resolveNoteHandler({ transaction }: CoursesDeps) {
  return endpoint(resolve_note, async (args, ctx) => {
    const who = author(ctx);
    const comment = args.comment.trim();
    return transaction(async (s) => {
      const note = await s.notes.lock(args.note);
      if (!note) return noteNotFound(args.note);
      if (note.status !== 'open') return invalidTransition(note.id, { status: note.status });
      if (!comment) return invalidTransition(note.id, 'empty_comment');
      await s.notes.addReply(note.id, who.user, comment);
      return ok(noteState(await s.notes.setState(note.id, 'done', 'author')));
    });
  });
}
