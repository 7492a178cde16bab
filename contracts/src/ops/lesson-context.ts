import { z } from 'zod';
import { defineOperation } from '../tool.ts';
import { BlockRef, StudentReportView } from '../tools/shapes.ts';
import { PreviousHomework, ReturnedHomework } from '../tools/student/start-lesson.ts';

/**
 * What start_lesson asks the other contexts for, in parallel and each optional: a context that
 * does not answer (not deployed, timed out) leaves its fields empty and the lesson still starts.
 */

/** A section of the course document collected in a lesson, with whether the student filled it. */
export const LessonArtifactBlock = z.object({
  artifact: z.string(),
  key: z.string(),
  title: z.string(),
  description: z.string(),
  filled: z.boolean(),
});
export type LessonArtifactBlock = z.infer<typeof LessonArtifactBlock>;

/**
 * start_lesson → homework: the document sections of this lesson (with `filled` in the session's
 * space) and the previous lesson's homework with the student's submission in that space (status,
 * due, overdue, version, last comment — never the answer). `previous_lesson` is the key of the
 * lesson before this one in course order (null for the first lesson).
 */
export const homeworkLessonContext = defineOperation({
  subject: 'homework.lesson_context',
  input: z.object({
    user: z.string(),
    course: z.string(),
    release: z.string(),
    lesson: z.string(),
    previous_lesson: z.string().nullable(),
    space: z.string(),
  }),
  output: z.object({
    artifact_blocks: z.array(LessonArtifactBlock),
    previous_homework: PreviousHomework.nullable(),
    /** Other homework of the student's returned for rework in the space (absent from older replicas). */
    returned_homework: z.array(ReturnedHomework).optional(),
  }),
});

/** How many returned homework items start_lesson and nothing_to_study carry at most. */
export const RETURNED_HOMEWORK_LIMIT = 3;

/**
 * start_lesson's nothing_to_study → homework: the student's homework returned for rework
 * (status Returned) in the given spaces, of one course or of all, recent first, at most `limit`.
 */
export const homeworkReturned = defineOperation({
  subject: 'homework.returned_homework',
  input: z.object({
    user: z.string(),
    spaces: z.array(z.string()).max(100),
    course: z.string().nullable(),
    limit: z.number().int().min(1).max(10),
  }),
  output: z.object({ items: z.array(ReturnedHomework) }),
});

/** complete_lesson (and the quiz's last answer) → homework: this lesson's document sections still empty in the space. */
export const homeworkEmptyBlocks = defineOperation({
  subject: 'homework.empty_blocks',
  input: z.object({
    user: z.string(),
    course: z.string(),
    release: z.string(),
    lesson: z.string(),
    space: z.string(),
  }),
  output: z.object({ empty_blocks: z.array(BlockRef) }),
});

/** start_lesson → knowledge: the notes of start_lesson's history — `lessonHistory` in knowledge.ts. */

/**
 * start_lesson → courses: the student's reports on this course that the authors closed (fixed,
 * rejected, duplicate) and the student was not told of yet; taking them marks them delivered, so
 * each reaches the student once.
 */
export const coursesTakeClosedReports = defineOperation({
  subject: 'courses.take_closed_reports',
  input: z.object({ user: z.string(), course: z.string() }),
  output: z.object({ reports: z.array(StudentReportView) }),
});
