import { ok, refuse, reply_note } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { Kysely } from 'kysely';
import { author } from '../access.ts';
import type { CoursesDb } from '../db.ts';
import { noteState } from '../domain/note-view.ts';
import { noteNotFound } from '../refusals.ts';
import { transaction } from '../store.ts';

/**
 * reply_note: a reply in the note's thread; the status stays and the curator moves next (an
 * accepted note keeps waiting on nobody: the curator reads the reply in the cabinet).
 */
export function replyNoteHandler(db: Kysely<CoursesDb>) {
  return endpoint(reply_note, async (args, ctx) => {
    const who = author(ctx);
    const text = args.text.trim();
    return transaction(db, async (s) => {
      const note = await s.notes.lock(args.note);
      if (!note) return noteNotFound(args.note);
      if (!text) return refuse('invalid_note', 'Пустой ответ: напишите текст для нити заметки', { where: 'text' });
      await s.notes.addReply(note.id, who.user, text);
      return ok(noteState(await s.notes.setState(note.id, note.status, note.status === 'accepted' ? null : 'author')));
    });
  });
}
