import { signedFilePath } from '@studium/platform';
import { isOverdue } from './domain/homework.ts';
import type { FileRow, SubmissionRepository, SubmissionRow } from './repositories/submission.repository.ts';

/** Where download URLs point and how they are signed. */
export interface UrlSigner {
  publicUrl: string;
  secret: string;
  ttlS: number;
}

/** A signed, expiring download URL of a file. Issue it only to a viewer who may open the file. */
export function fileUrl(signer: UrlSigner, f: Pick<FileRow, 'object' | 'name' | 'type'>): string {
  const exp = Math.floor(Date.now() / 1000) + signer.ttlS;
  return `${signer.publicUrl.replace(/\/$/, '')}${signedFilePath(signer.secret, { object: f.object, name: f.name, type: f.type, exp })}`;
}

/** The web page of a lesson, where its homework is handed in too. */
export function lessonUrl(publicUrl: string, lesson: string): string {
  return `${publicUrl.replace(/\/$/, '')}/lessons/${encodeURIComponent(lesson)}#homework`;
}

/**
 * A submission as the student and the curator see it: status, due date, the current answer and
 * files, the journal and every version. The caller has checked that the viewer may open its files.
 */
export async function submissionView(
  repo: SubmissionRepository,
  signer: UrlSigner,
  row: SubmissionRow,
  opts: { version?: number } = {},
) {
  const [files, versions, journal] = await Promise.all([
    repo.files(row.id),
    repo.versions(row.id),
    repo.journal(row.id),
  ]);
  const byId = new Map(files.map((f) => [f.id, f]));
  const view = (f: FileRow) => ({
    id: f.id,
    name: f.name,
    type: f.type,
    size: f.size,
    sha256: f.sha256,
    url: fileUrl(signer, f),
  });
  const current = versions.at(-1);
  const currentFiles = (current?.files ?? []).map((id) => byId.get(id)).filter((f): f is FileRow => !!f);
  return {
    submission: row.id,
    status: row.status,
    due_at: row.due_at,
    overdue: isOverdue(row.status, row.due_at),
    version: row.version,
    answer: row.answer,
    files: currentFiles.map(view),
    last_comment: row.last_comment,
    events: journal.map((e) => ({ at: e.at, event: e.event, comment: e.comment, by: e.actor, version: e.version })),
    versions: versions.map((v) => ({
      version: v.version,
      status: 'Submitted' as const,
      ...(v.version > versions.length - ANSWERS_IN_VIEW || v.version === opts.version
        ? { answer: v.answer }
        : { answer: null, answer_omitted: true }),
      files: v.files
        .map((id) => byId.get(id))
        .filter((f): f is FileRow => !!f)
        .map(view),
      submitted_at: v.submitted_at,
      by: v.by,
    })),
  };
}

/**
 * Versions whose answers a view carries: the latest ones. Older versions come with their files
 * and `answer_omitted` (homework_submission with `version` reads one whole), so a reply stays
 * under NATS's 1 MB however often the answer was saved (each answer is at most ANSWER_LIMIT).
 */
export const ANSWERS_IN_VIEW = 10;

/** The longest text answer, characters (answer_too_large). */
export const ANSWER_LIMIT = 20_000;
