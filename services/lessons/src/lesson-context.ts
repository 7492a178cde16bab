import {
  coursesTakeClosedReports,
  type HistoryNote,
  homeworkEmptyBlocks,
  homeworkLessonContext,
  homeworkReturned,
  type LessonArtifactBlock,
  lessonHistory,
  type Operation,
  type OutputOf,
  type Principal,
  RETURNED_HOMEWORK_LIMIT,
} from '@studium/contracts';
import type { Bus, Logger } from '@studium/platform';
import type { z } from 'zod';

/** A homework returned for rework, as homework reports it. */
export type ReturnedHomework = OutputOf<typeof homeworkReturned>['items'][number];

/** What other contexts tell start_lesson; a context that does not answer leaves its part empty. */
export interface LessonContext {
  artifactBlocks: LessonArtifactBlock[] | null;
  previousHomework: OutputOf<typeof homeworkLessonContext>['previous_homework'];
  /** Other homework returned for rework in the session's space. */
  returnedHomework: ReturnedHomework[];
  notes: HistoryNote[];
  closedReports: OutputOf<typeof coursesTakeClosedReports>['reports'] | null;
}

/** Asks an optional context; any refusal, failure, missing service or timeout is "no answer". */
async function ask<O extends Operation>(
  bus: Bus,
  log: Logger,
  op: O,
  args: z.infer<O['input']>,
  timeoutMs: number,
  student: Principal | null,
): Promise<z.infer<O['output']> | null> {
  try {
    // The student's signed principal goes along: each context checks it asks for that student.
    const reply = await bus.request(op, student, args, { timeoutMs });
    return reply.ok ? reply.data : null;
  } catch (err) {
    log.debug({ err, subject: op.subject }, 'optional lesson context did not answer');
    return null;
  }
}

/** Asks homework, knowledge and courses in parallel for start_lesson's optional fields. */
export async function fetchLessonContext(
  bus: Bus,
  log: Logger,
  timeoutMs: number,
  q: {
    user: string;
    course: string;
    release: string;
    lesson: string;
    previousLesson: string | null;
    space: string;
    keys: string[];
  },
  student: Principal,
): Promise<LessonContext> {
  const [hw, knowledge, reports] = await Promise.all([
    ask(
      bus,
      log,
      homeworkLessonContext,
      {
        user: q.user,
        course: q.course,
        release: q.release,
        lesson: q.lesson,
        previous_lesson: q.previousLesson,
        space: q.space,
      },
      timeoutMs,
      student,
    ),
    ask(bus, log, lessonHistory, { user: q.user, course: q.course, keys: q.keys }, timeoutMs, student),
    ask(bus, log, coursesTakeClosedReports, { user: q.user, course: q.course }, timeoutMs, student),
  ]);
  return {
    artifactBlocks: hw?.artifact_blocks ?? null,
    previousHomework: hw?.previous_homework ?? null,
    returnedHomework: hw?.returned_homework ?? [],
    notes: knowledge?.notes ?? [],
    closedReports: reports?.reports ?? null,
  };
}

/** The lesson's document sections still empty in the space (homework); empty when homework does not answer. */
export async function fetchEmptyBlocks(
  bus: Bus,
  log: Logger,
  timeoutMs: number,
  q: { user: string; course: string; release: string; lesson: string; space: string },
  student: Principal,
) {
  const reply = await ask(bus, log, homeworkEmptyBlocks, q, timeoutMs, student);
  return reply?.empty_blocks ?? [];
}

/**
 * The student's homework returned for rework in the spaces (of one course, or of all), for
 * nothing_to_study; empty when homework does not answer.
 */
export async function fetchReturnedHomework(
  bus: Bus,
  log: Logger,
  timeoutMs: number,
  q: { user: string; spaces: string[]; course: string | null },
  student: Principal,
): Promise<ReturnedHomework[]> {
  if (!q.spaces.length) return [];
  const reply = await ask(bus, log, homeworkReturned, { ...q, limit: RETURNED_HOMEWORK_LIMIT }, timeoutMs, student);
  return reply?.items ?? [];
}
