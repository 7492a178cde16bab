import { lessonId, ok, type Principal, type Release } from '@studium/contracts';
import type { CourseGateway } from '../courses.ts';
import { blockView, documentFill } from '../domain/document.ts';
import { artifactNotFound } from '../refusals.ts';
import type { DocumentRepository } from '../repositories/document.repository.ts';

/** What artifact and fill_document read: the list of documents, or one by sections. */
export async function readDocuments(
  deps: { gateway: CourseGateway; documents: DocumentRepository },
  who: Principal,
  args: { course: string; artifact?: string | undefined },
  space: string | undefined,
) {
  const access = await deps.gateway.access(who, args.course, space);
  if ('ok' in access) return access;
  const release = await deps.gateway.release(args.course);
  let document: Release['document'] = null;
  if ('ok' in release) {
    // Enrolled in a course that has no release (yet, or any more): it has no documents to show.
    if (release.error.code !== 'course_not_released') return release;
  } else {
    document = release.content.document;
  }
  const base = { space: access.space, course: args.course };
  const key = (artifact: string) => ({ user: who.user, course: args.course, space: access.space, artifact });
  if (args.artifact === undefined || args.artifact === '') {
    if (!document) return ok({ ...base, artifacts: [] });
    const state = await deps.documents.get(key(document.key));
    return ok({
      ...base,
      artifacts: [
        {
          key: document.key,
          title: document.title,
          description: document.purpose,
          ...documentFill(document.sections, state),
        },
      ],
    });
  }
  if (!document || document.key !== args.artifact) {
    return artifactNotFound(args.artifact, document ? [document.key] : []);
  }
  const state = await deps.documents.get(key(document.key));
  const blocks = document.sections.map((s) =>
    blockView(s, state.sections[s.key] ?? { next: 1, rows: [], values: {} }, (k) => lessonId(args.course, k)),
  );
  return ok({
    ...base,
    artifact: { key: document.key, title: document.title, description: document.purpose, blocks },
    ...documentFill(document.sections, state),
  });
}
