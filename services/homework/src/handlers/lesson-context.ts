import { homeworkEmptyBlocks, homeworkLessonContext, lessonId, ok, parseLessonId } from '@studium/contracts';
import { endpoint, requireActsFor } from '@studium/platform';
import { type CourseGateway, findLesson } from '../courses.ts';
import { type DocumentState, isFilled, sectionState } from '../domain/document.ts';
import { homeworkTask, isOverdue } from '../domain/homework.ts';
import type { DocumentRepository } from '../repositories/document.repository.ts';
import type { SubmissionRepository } from '../repositories/submission.repository.ts';
import { returnedHomework } from './returned-homework.ts';

interface Deps {
  gateway: CourseGateway;
  documents: DocumentRepository;
  submissions: SubmissionRepository;
  /** For the lesson pages' addresses of returned homework. */
  publicUrl: string;
}

/** A lesson argument: its id (`<course>.<key>`) or its key. */
const keyOf = (lesson: string) => parseLessonId(lesson)?.key ?? lesson;

/** The lesson's sections of the release's document (no I/O: the release is kept). */
async function sectionsOf(deps: Deps, a: { course: string; release: string; lesson: string }) {
  const release = await deps.gateway.release(a.course, a.release);
  if ('ok' in release) return { release, document: null, sections: [] };
  const document = release.content.document ?? null;
  const key = keyOf(a.lesson);
  const sections = document?.sections.filter((s) => s.lesson === key) ?? [];
  return { release, document: sections.length ? document : null, sections };
}

type Section = Awaited<ReturnType<typeof sectionsOf>>['sections'][number];

/** Each section with whether it is filled in the document's content. */
function withFill(artifact: string, sections: Section[], state: DocumentState) {
  return sections.map((s) => ({
    artifact,
    key: s.key,
    title: s.title,
    description: s.description,
    filled: isFilled(s, sectionState(state, s.key)),
  }));
}

/**
 * homework.lesson_context (start_lesson → homework): the lesson's document sections, the previous
 * lesson's homework and the other homework returned for rework in the space.
 */
export function lessonContextHandler(deps: Deps) {
  return endpoint(
    homeworkLessonContext,
    async (args, ctx) => {
      // lessons passes on the student of its start_lesson.
      requireActsFor(ctx, args.user);
      const { release, document, sections } = await sectionsOf(deps, args);
      if ('ok' in release) return release;
      let previous = null;
      const prevLesson = args.previous_lesson ? findLesson(release.content, keyOf(args.previous_lesson)) : undefined;
      const task = prevLesson ? homeworkTask(prevLesson) : null;
      const id = prevLesson && task ? lessonId(args.course, prevLesson.key) : null;
      // The document and the previous lesson's submission in one statement; beside it, the other
      // homework returned for rework in the space (a course's last lesson has no next lesson to show it).
      const [found, returned] = await Promise.all([
        deps.submissions.lessonContext({
          user: args.user,
          course: args.course,
          space: args.space,
          artifact: document?.key ?? null,
          previousLesson: id,
        }),
        returnedHomework(deps, {
          user: args.user,
          spaces: [args.space],
          course: null,
          exclude: id,
        }),
      ]);
      const blocks = document ? withFill(document.key, sections, found.content) : [];
      // No submission row: the student never passed that lesson in this space, so nothing was
      // assigned (my_homework has no such item either) — null, not a made-up «Assigned».
      const row = found.previous;
      if (prevLesson && task && id && row) {
        const status = row.status;
        previous = {
          lesson: id,
          lesson_title: prevLesson.title,
          title: task.title,
          status,
          due_at: row.due_at ?? null,
          overdue: isOverdue(status, row.due_at ?? null),
          version: row.version ?? null,
          last_comment: row.last_comment ?? null,
        };
      }
      return ok({ artifact_blocks: blocks, previous_homework: previous, returned_homework: returned });
    },
    { forwarded: true },
  );
}

/** homework.empty_blocks (complete_lesson → homework): this lesson's sections still not filled. */
export function emptyBlocksHandler(deps: Deps) {
  return endpoint(
    homeworkEmptyBlocks,
    async (args, ctx) => {
      // lessons passes on the student of its complete_lesson or submit_answer.
      requireActsFor(ctx, args.user);
      const { release, document, sections: all } = await sectionsOf(deps, args);
      if ('ok' in release) return release;
      const state = document
        ? await deps.documents.get({ user: args.user, course: args.course, space: args.space, artifact: document.key })
        : null;
      const sections = document && state ? withFill(document.key, all, state) : [];
      return ok({
        empty_blocks: sections
          .filter((s) => !s.filled)
          .map((s) => ({ artifact: s.artifact, key: s.key, title: s.title })),
      });
    },
    { forwarded: true },
  );
}
