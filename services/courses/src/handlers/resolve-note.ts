import { ok, refuse, resolve_note } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { Kysely } from 'kysely';
import { author } from '../access.ts';
import type { CoursesDb } from '../db.ts';
import { noteState } from '../domain/note-view.ts';
import { noteNotFound } from '../refusals.ts';
import { transaction } from '../store.ts';

/** resolve_note: an open note becomes done with a comment in the thread; the curator checks it next. */
export function resolveNoteHandler(db: Kysely<CoursesDb>) {
  return endpoint(resolve_note, async (args, ctx) => {
    const who = author(ctx);
    const comment = args.comment.trim();
    return transaction(db, async (s) => {
      const note = await s.notes.lock(args.note);
      if (!note) return noteNotFound(args.note);
      if (note.status !== 'open') {
        return refuse(
          'invalid_transition',
          note.status === 'done'
            ? 'Заметка уже отмечена сделанной и ждёт проверки куратора'
            : 'Заметка уже принята куратором',
          { note: note.id, status: note.status, allowed: ['open'] },
        );
      }
      if (!comment) {
        return refuse('invalid_transition', 'Пустой комментарий: напишите, что и где изменено и в какой версии', {
          note: note.id,
          where: 'comment',
        });
      }
      await s.notes.addReply(note.id, who.user, comment);
      return ok(noteState(await s.notes.setState(note.id, 'done', 'author')));
    });
  });
}
