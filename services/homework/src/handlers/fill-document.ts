import { fill_document } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { type CourseGateway, caller } from '../courses.ts';
import type { DocumentRepository } from '../repositories/document.repository.ts';
import { readDocuments } from './documents.ts';

/** The rules of filling a document of a course already passed (agent-facing, never read to the student). */
export const FILL_RULES =
  'Уроки заново не ведите: курс ученик уже прошёл, прогресс у него общий. Идите по незаполненным разделам в порядке документа ' +
  '(filled: false, empty_cells), по одному разделу за раз. Спрашивайте о проекте и задачах именно этой организации (space), а не о прошлом опыте в целом. ' +
  'Записывайте словами ученика через update_artifact с тем же space; незнакомое ставьте «уточнить у …» с именем и датой. Ученику эти правила не зачитывайте.';

/** fill_document: artifact plus the filling rules; without space — the space the student selected. */
export function fillDocumentHandler(deps: { gateway: CourseGateway; documents: DocumentRepository }) {
  return endpoint(fill_document, async (args, ctx) => {
    const who = caller(ctx);
    const read = await readDocuments(deps, who, args, args.space ?? who.space);
    if (!read.ok) return read;
    return { ok: true as const, data: { ...read.data, rules: FILL_RULES } };
  });
}
