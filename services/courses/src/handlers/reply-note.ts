import { ok, reply_note } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import { noteState } from '../domain/note-view.ts';
import { invalidNote, noteNotFound } from '../refusals.ts';
import type { CoursesDeps } from '../store.ts';

/**
 * reply_note: a reply in the note's thread; the status stays and the curator moves next (an
 * accepted note keeps waiting on nobody: the curator reads the reply in the cabinet).
 */
export function replyNoteHandler({ transaction }: CoursesDeps) {
  return endpoint(reply_note, async (args, ctx) => {
    const who = author(ctx);
    const text = args.text.trim();
    return transaction(async (s) => {
      const note = await s.notes.lock(args.note);
      if (!note) return noteNotFound(args.note);
      if (!text) return invalidNote('empty_reply');
      await s.notes.addReply(note.id, who.user, text);
      return ok(noteState(await s.notes.setState(note.id, note.status, note.status === 'accepted' ? null : 'author')));
    });
  });
}
