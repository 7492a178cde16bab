import { ok } from '@studium/contracts';
import { emitEvent } from '@studium/platform';
import type { Kysely, Transaction } from 'kysely';
import type { LessonInCourse } from './courses.ts';
import type { HomeworkDb } from './db.ts';
import { transition } from './domain/homework.ts';
import { acceptedLocked, busy } from './refusals.ts';
import {
  type FileRow,
  isLockBusy,
  SubmissionRepository,
  type SubmissionRow,
} from './repositories/submission.repository.ts';
import { transact } from './store.ts';
import { submissionView, type UrlSigner } from './views.ts';

/** What one save writes: the new text (undefined keeps the current one) and new files. */
export interface Save {
  answer?: string;
  files?: Omit<FileRow, 'created_at' | 'submission'>[];
  /** Checks that need the locked row (file limits); a refusal stops the save. */
  check?: (
    row: SubmissionRow,
    existingFiles: number,
  ) => Promise<{ ok: false; error: { code: string; message: string } } | null>;
}

/** The outbox event of a submission change. */
export async function emitChange(
  trx: Transaction<HomeworkDb>,
  key:
    | 'homework.assigned'
    | 'homework.submitted'
    | 'homework.returned'
    | 'homework.accepted'
    | 'homework.acceptance_cancelled',
  row: SubmissionRow,
  by: string | null,
  comment: string | null,
) {
  await emitEvent(trx, key, {
    submission: row.id,
    user: row.user_id,
    course: row.course,
    lesson: row.lesson,
    space: row.space,
    organization: row.organization,
    status: row.status,
    version: row.version,
    due_at: row.due_at,
    by,
    comment,
    at: row.updated_at,
  });
}

/**
 * Saves a new version of the student's answer (text, files or both) in one transaction: locks the
 * submission without waiting (busy when another request holds it), refuses an accepted one, and
 * writes the version, the journal entry and the event together.
 */
export async function saveVersion(
  db: Kysely<HomeworkDb>,
  signer: UrlSigner,
  at: LessonInCourse,
  who: { user: string; full_name: string },
  save: Save,
) {
  const user = who.user;
  const place = {
    user,
    course: at.course,
    lesson: at.id,
    lesson_key: at.key,
    space: at.access.space,
    organization: at.access.organization,
  };
  try {
    return await transact(db, async (trx) => {
      const repo = new SubmissionRepository(trx);
      const { row } = await repo.lockPlace(place, 'Assigned');
      if (transition(row.status, 'submit') === null) return acceptedLocked(at.id);
      const current = row.version === null ? undefined : (await repo.versions(row.id)).at(-1);
      const existing = current?.files ?? [];
      const refused = await save.check?.(row, existing.length);
      if (refused) return refused;
      const added = (save.files ?? []).map((f) => ({ ...f, submission: row.id }));
      await repo.addFiles(added);
      const version = (row.version ?? 0) + 1;
      const answer = save.answer !== undefined ? save.answer : row.answer;
      await repo.addVersion({
        submission: row.id,
        version,
        answer,
        files: [...existing, ...added.map((f) => f.id)],
        by: user,
      });
      const updated = await repo.update(row.id, {
        status: 'Submitted',
        version,
        answer,
        submitted_at: new Date().toISOString(),
        curators: at.release.content.course.curators,
        // The name the curator's queue shows: the platform's current one, from the signed principal.
        ...(who.full_name ? { student_name: who.full_name } : {}),
      });
      await repo.addJournal({ submission: row.id, event: 'submitted', actor: user, version, comment: null });
      await emitChange(trx, 'homework.submitted', updated, user, null);
      return ok({ space: at.access.space, submission: await submissionView(repo, signer, updated) });
    });
  } catch (err) {
    if (isLockBusy(err)) return busy(at.id);
    throw err;
  }
}
