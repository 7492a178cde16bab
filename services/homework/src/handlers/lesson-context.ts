import { homeworkEmptyBlocks, homeworkLessonContext, lessonId, ok, parseLessonId } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { type CourseGateway, findLesson } from '../courses.ts';
import { isFilled, sectionState } from '../domain/document.ts';
import { homeworkTask, isOverdue } from '../domain/homework.ts';
import type { DocumentRepository } from '../repositories/document.repository.ts';
import type { SubmissionRepository } from '../repositories/submission.repository.ts';

interface Deps {
  gateway: CourseGateway;
  documents: DocumentRepository;
  submissions: SubmissionRepository;
}

/** A lesson argument: its id (`<course>.<key>`) or its key. */
const keyOf = (lesson: string) => parseLessonId(lesson)?.key ?? lesson;

/** The sections of the lesson's document with whether each is filled in the space. */
async function lessonSections(
  deps: Deps,
  a: { user: string; course: string; release: string; lesson: string; space: string },
) {
  const release = await deps.gateway.release(a.course, a.release);
  if ('ok' in release) return { release, sections: [] };
  const document = release.content.document;
  const key = keyOf(a.lesson);
  const sections = document?.sections.filter((s) => s.lesson === key) ?? [];
  if (!document || sections.length === 0) return { release, sections: [] };
  const state = await deps.documents.get({ user: a.user, course: a.course, space: a.space, artifact: document.key });
  return {
    release,
    sections: sections.map((s) => ({
      artifact: document.key,
      key: s.key,
      title: s.title,
      description: s.description,
      filled: isFilled(s, sectionState(state, s.key)),
    })),
  };
}

/** homework.lesson_context (start_lesson → homework): the lesson's document sections and the previous lesson's homework. */
export function lessonContextHandler(deps: Deps) {
  return endpoint(homeworkLessonContext, async (args) => {
    const { release, sections } = await lessonSections(deps, args);
    if ('ok' in release) return release;
    let previous = null;
    const prevLesson = args.previous_lesson ? findLesson(release.content, keyOf(args.previous_lesson)) : undefined;
    const task = prevLesson ? homeworkTask(prevLesson) : null;
    const id = prevLesson ? lessonId(args.course, prevLesson.key) : null;
    // No submission row: the student never passed that lesson in this space, so nothing was
    // assigned (my_homework has no such item either) — null, not a made-up «Assigned».
    const row = id && task ? await deps.submissions.find(args.user, id, args.space) : undefined;
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
    return ok({ artifact_blocks: sections, previous_homework: previous });
  });
}

/** homework.empty_blocks (complete_lesson → homework): this lesson's sections still not filled. */
export function emptyBlocksHandler(deps: Deps) {
  return endpoint(homeworkEmptyBlocks, async (args) => {
    const { release, sections } = await lessonSections(deps, args);
    if ('ok' in release) return release;
    return ok({
      empty_blocks: sections
        .filter((s) => !s.filled)
        .map((s) => ({ artifact: s.artifact, key: s.key, title: s.title })),
    });
  });
}
