import { randomUUID } from 'node:crypto';
import { StagedFile, type StoredStagedFile, store_homework_file } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { type CourseGateway, caller } from '../courses.ts';
import type { HomeworkDb } from '../db.ts';
import { fileRejected, sniffType, withCleanNames } from '../domain/files.ts';
import type { FileStore } from '../file-store.ts';
import { answerMode, fileMissing, invalidFiles, noHomework } from '../refusals.ts';
import { SubmissionRepository } from '../repositories/submission.repository.ts';
import { saveVersion } from '../submit.ts';
import type { UrlSigner } from '../views.ts';
import { answerRefusal, offerRefusal } from './check-homework-files.ts';

const StagedFiles = z.array(StagedFile);
type Kept = StoredStagedFile;

/**
 * store_homework_file: the files of the upload window become one new version of the answer; the
 * text stays, or, when the call brings `answer` (the lesson page's hand-in), is replaced in the same
 * version. The edge has put the bytes in the object store; here they are checked (count, sizes,
 * type by content) and kept, or removed when the save is refused.
 */
export function storeHomeworkFileHandler(deps: {
  db: Kysely<HomeworkDb>;
  gateway: CourseGateway;
  signer: UrlSigner;
  files: FileStore;
}) {
  return endpoint(store_homework_file, async (args, ctx) => {
    const who = caller(ctx);
    const parsed = StagedFiles.safeParse(args.files ?? []);
    const kept = parsed.success ? parsed.data.filter((f): f is Kept => 'object' in f) : [];
    const named = withCleanNames(kept);
    const staged = named ?? kept;
    const reply = await (async () => {
      if (!parsed.success || !named || parsed.data.some((f) => 'invalid' in f)) return invalidFiles();
      const at = await deps.gateway.lesson(who, args.lesson, args.space);
      if ('ok' in at) return at;
      const hw = at.lesson.homework;
      if (!hw) return noHomework(args.lesson);
      if (hw.answer_mode === 'text') return answerMode('text');
      // The lesson page hands in its text with the files: one version holds both.
      const answer = args.answer?.trim();
      const text = answer === undefined ? null : answerRefusal(hw.answer_mode, answer.length);
      if (text) return text;
      // Filled by the check, which runs on the locked row before the version is written.
      const files: Array<{ id: string; object: string; name: string; type: string; size: number; sha256: string }> = [];
      return saveVersion(deps.db, deps.signer, at, who, {
        files,
        ...(answer === undefined ? {} : { answer }),
        check: async (row, existing) => {
          // On the locked row: two uploads to one answer cannot both pass the count (the quota sums
          // committed files, so uploads to two answers at once may pass it by one batch).
          const refused = offerRefusal(
            staged,
            existing,
            await new SubmissionRepository(deps.db).storedBytes(row.user_id),
          );
          if (refused) return refused;
          for (const f of staged) {
            const type = sniffType(f.name, Buffer.from(f.head, 'base64'));
            if (!type) return fileRejected(f.name);
            const stored = await deps.files.info(f.object);
            if (!stored || stored.size !== f.size) return fileMissing({ lost: f.name });
            files.push({
              id: randomUUID(),
              object: f.object,
              name: f.name,
              type: type.mime,
              size: f.size,
              sha256: stored.sha256,
            });
          }
          return null;
        },
      });
    })();
    if (!reply.ok) await deps.files.discard(staged.map((f) => f.object));
    return reply;
  });
}
