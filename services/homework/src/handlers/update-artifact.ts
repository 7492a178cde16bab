import { type EventPayload, events, ok, update_artifact } from '@studium/contracts';
import { type Bus, endpoint, eventEnvelope, type Logger } from '@studium/platform';
import type { Kysely } from 'kysely';
import { type CourseGateway, caller } from '../courses.ts';
import type { HomeworkDb } from '../db.ts';
import { documentFill, emptyCells, findSection, isFilled, sectionState } from '../domain/document.ts';
import { applyWrite } from '../domain/document-write.ts';
import { lessonProgress } from '../progress.ts';
import { artifactBlockNotFound, artifactNotFound, artifactTooManyRows } from '../refusals.ts';
import { DocumentRepository } from '../repositories/document.repository.ts';
import { transact } from '../store.ts';

/**
 * update_artifact: writes rows or fields of a document section; every check comes before the
 * write. Mid-session the reply carries the lesson's objectives, asked of lessons while the write
 * runs; without an answer in time the write is answered without them.
 */
export function updateArtifactHandler(deps: {
  db: Kysely<HomeworkDb>;
  gateway: CourseGateway;
  bus: Bus;
  log: Logger;
  progressTimeoutMs: number;
}) {
  return endpoint(update_artifact, async (args, ctx) => {
    const who = caller(ctx);
    const access = await deps.gateway.access(who, args.course, args.space);
    if ('ok' in access) return access;
    const release = await deps.gateway.release(args.course);
    const document = 'ok' in release ? null : release.content.document;
    if ('ok' in release && release.error.code !== 'course_not_released') return release;
    if (!document || document.key !== args.artifact) {
      return artifactNotFound(args.artifact, document ? [document.key] : []);
    }
    const section = findSection(document.sections, args.key);
    if (!section) {
      return artifactBlockNotFound(
        document.key,
        args.key,
        document.sections.map((s) => s.key),
      );
    }
    const key = { user: who.user, course: args.course, space: access.space, artifact: document.key };
    const progress = lessonProgress({ bus: deps.bus, log: deps.log, timeoutMs: deps.progressTimeoutMs }, who, {
      course: args.course,
      space: access.space,
    });
    const reply = await transact(deps.db, async (trx) => {
      const documents = new DocumentRepository(trx);
      const state = await documents.lock(key);
      const written = applyWrite(section, sectionState(state, section.key), args);
      if (!written.ok) return written;
      const next = { sections: { ...state.sections, [section.key]: written.state } };
      const bytes = Buffer.byteLength(JSON.stringify(next));
      if (bytes > DOCUMENT_BYTES_LIMIT) {
        return artifactTooManyRows(section.key, { bytes, limitBytes: DOCUMENT_BYTES_LIMIT });
      }
      const fill = documentFill(document.sections, next);
      const changed: EventPayload<'homework.document_updated'> = {
        user: who.user,
        course: args.course,
        space: access.space,
        organization: access.organization,
        artifact: document.key,
        title: document.title,
        ...fill,
        at: new Date().toISOString(),
      };
      // The content and its event in one statement.
      const subject = events['homework.document_updated'].subject;
      await documents.saveWithEvent(key, next, { subject, envelope: eventEnvelope(subject, changed) });
      return ok({
        space: access.space,
        artifact: document.key,
        key: section.key,
        ...fill,
        filled: isFilled(section, written.state),
        created: written.created,
        empty_cells: emptyCells(section, written.state),
      });
    });
    if (!reply.ok) return reply;
    const objectives = await progress;
    return objectives ? ok({ ...reply.data, objectives }) : reply;
  });
}

/**
 * The largest stored document, bytes: artifact returns a document whole in one NATS message (1 MB),
 * so a write that would pass this is refused like a section over its row limit.
 */
export const DOCUMENT_BYTES_LIMIT = 512 * 1024;
