import {
  type CourseAccess,
  lessonId,
  type ReleaseLesson,
  homeworkTask as sharedHomeworkTask,
} from '@studium/contracts';
import type { Continuation } from '../domain/continuation.ts';
import { lessonMap, type Mark, type NextStep, objectiveStatus, quizRequired } from '../domain/lesson-progress.ts';
import type { Opening } from '../domain/opening.ts';
import type { QuizStanding } from '../domain/quiz.ts';
import { START_RULES, startNext } from '../domain/teaching-rules.ts';
import type { LessonContext } from '../lesson-context.ts';
import type { LoadedRelease, PlacedLesson } from '../releases.ts';
import type { Run } from '../repositories/run.repository.ts';

/** A homework task as start_lesson and course_outline show it (the shared wording); null when the lesson has none. */
export function homeworkTask(lesson: ReleaseLesson) {
  return sharedHomeworkTask(lesson);
}

/** Past lessons of the course (up to five before this one) with their objectives not covered yet. */
export function pastLessons(
  active: LoadedRelease,
  placed: PlacedLesson,
  runs: Run[],
  marksByRun: Map<string, Map<string, Mark>>,
) {
  const out: Array<{
    key: string;
    title: string;
    status: string;
    open_objectives: Array<{ key: string; text: string }>;
  }> = [];
  const byKey = new Map(runs.map((r) => [r.lesson_key, r]));
  for (let i = placed.index - 1; i >= 0 && out.length < HISTORY_LESSONS; i--) {
    const key = active.order[i] as string;
    const run = byKey.get(key);
    const past = active.lessons.get(key);
    if (!run || !past) continue;
    const marks = marksByRun.get(run.id) ?? new Map<string, Mark>();
    out.push({
      key,
      title: past.lesson.title,
      status: run.status,
      open_objectives: past.lesson.objectives
        .filter((o) => objectiveStatus(o.items, marks) !== 'covered')
        .map((o) => ({ key: o.key, text: o.text })),
    });
  }
  return out.reverse();
}

/** How many past lessons start_lesson's history carries. */
export const HISTORY_LESSONS = 5;

export interface StartViewInput {
  sessionId: string;
  channel: 'agent' | 'web';
  access: CourseAccess;
  active: LoadedRelease;
  placed: PlacedLesson;
  run: Run;
  marks: Map<string, Mark>;
  opening: Opening;
  step: NextStep;
  /** Where the required quiz stands (exhausted, a pause running); null without one or once passed. */
  quiz: QuizStanding | null;
  /** What follows a failed lesson (its required quiz exhausted); null for any other. */
  after: Continuation | null;
  frame: boolean;
  ctx: LessonContext;
  history: ReturnType<typeof pastLessons>;
  signals: string[];
  attemptsLeft: number | null;
  web: { demoLeft: number } | null;
}

/** The start_lesson reply. */
export function startView(v: StartViewInput) {
  const { lesson } = v.placed;
  const course = v.active.content.course;
  const reports = v.ctx.closedReports?.length ? v.ctx.closedReports : null;
  return {
    session: v.sessionId,
    space: v.access.space,
    lesson: {
      id: lessonId(v.active.course, lesson.key),
      key: lesson.key,
      title: lesson.title,
      hook: lesson.hook,
      chapter: v.placed.chapter.title,
      course: v.active.course,
      overdue: v.access.overdue,
      ...(v.web
        ? {
            number: v.placed.index + 1,
            total: v.active.order.length,
            course_title: course.title,
            demo_lessons_left: v.web.demoLeft,
          }
        : {}),
    },
    course_promise: course.promise,
    start: { opening: v.opening },
    lesson_map: lessonMap(lesson, v.marks),
    next_step: v.step,
    next: startNext(
      v.opening,
      v.step,
      {
        signals: v.signals.length > 0,
        reports: reports !== null,
        previousHomework: v.ctx.previousHomework !== null,
        returned: v.ctx.returnedHomework,
      },
      v.quiz,
      v.after,
    ),
    resume_from: v.run.resume_from,
    directive: lesson.directive || null,
    material: lesson.material || null,
    ...(v.frame ? { course_frame: { frame: course.frame, learn_about_student: course.learn_about_student } } : {}),
    history: {
      lessons: v.history,
      notes: v.ctx.notes.map((n) => ({ key: n.key, kind: n.kind, text: n.text, course: n.course })),
    },
    ...(reports ? { closed_reports: reports } : {}),
    artifact_blocks: v.ctx.artifactBlocks ?? [],
    section_hints: lesson.section_hints,
    quiz: {
      required: quizRequired(lesson),
      pass_threshold: lesson.quiz?.pass_threshold ?? null,
      attempts_left: lesson.quiz ? v.attemptsLeft : null,
    },
    homework: homeworkTask(lesson),
    previous_homework: v.ctx.previousHomework,
    ...(v.ctx.returnedHomework.length ? { returned_homework: v.ctx.returnedHomework } : {}),
    ...(v.signals.length ? { signals: v.signals } : {}),
    ...(v.channel === 'agent' ? { teaching_rules: START_RULES } : {}),
  };
}
