import { course_outline, TUTOR_TITLE_MAX } from '@studium/contracts';
import { type CallDeps, type Caller, callTool } from '../mcp/tools.ts';

/** The titles a new conversation is listed by and the tutor's instructions name (null when unknown). */
export interface LessonTitles {
  course: string | null;
  lesson: string | null;
}

type Outline = { title?: string; chapters?: Array<{ lessons?: Array<{ id?: string; title?: string }> }> };

const cut = (v: unknown) => (typeof v === 'string' && v.trim() ? v.slice(0, TUTOR_TITLE_MAX) : null);

/**
 * The titles of what the page opened (a lesson id `course.lesson` or a course id), read for the
 * student with course_outline on the tools' own path, so only a course the student may read gives
 * its titles. A refusal or a failure leaves them unknown: the conversation still starts, and the
 * first start_lesson names it.
 */
export async function lessonTitles(deps: CallDeps, caller: Caller, target: string): Promise<LessonTitles> {
  const course = target.split('.')[0] ?? target;
  // The stream's request was counted by the rate limit already; this read is part of it.
  const result = await callTool(deps, course_outline, caller, { course }, { rateCounted: true });
  const sc = (result as { structuredContent?: { ok?: boolean; data?: Outline } }).structuredContent;
  if (sc?.ok !== true || !sc.data) return { course: null, lesson: null };
  const lesson = target.includes('.')
    ? sc.data.chapters?.flatMap((c) => c.lessons ?? []).find((l) => l.id === target)
    : undefined;
  return { course: cut(sc.data.title), lesson: cut(lesson?.title) };
}
