import { z } from 'zod';
import { defineOperation } from '../tool.ts';
import { ObjectiveProgress } from '../tools/shapes.ts';
import { StudentNote } from '../tools/student/my-notes.ts';

/** A student note as lesson_history returns it: the note, its kind and course, and whether a frame key names it. */
export const HistoryNote = z.looseObject({
  ...StudentNote.shape,
  kind: z.enum(['fact', 'project', 'observation']),
  /** null for a fact (it lives in every course). */
  course: z.string().nullable(),
  /** True when `keys` (the course frame's keys) names this note; false for a free key. */
  frame: z.boolean(),
});
export type HistoryNote = z.infer<typeof HistoryNote>;

/**
 * The notes part of start_lesson's `history` (lessons → knowledge). Returns every fact of the
 * user, then every project and observation note the user has in `course`: first the notes whose
 * key is among `keys` (the course frame's keys) in the order of `keys`, then the free keys (not
 * in `keys`) oldest first. Facts are ordered the same way (frame keys first). Nothing else: the
 * notes of other courses never come (a scenario of one course does not reach another silently).
 * The size is bounded by the note limit per set (NOTE_LIMIT plus the profile keys).
 */
export const lessonHistory = defineOperation({
  subject: 'knowledge.lesson_history',
  input: z.object({ user: z.string(), course: z.string(), keys: z.array(z.string()) }),
  output: z.object({ notes: z.array(HistoryNote) }),
});

/**
 * What knowledge asks lessons about a session named in `remember` (knowledge → lessons; served
 * by the lessons service). `found: false` when there is no such session or it belongs to another
 * user (remember answers not_your_session either way). `objectives` — the lesson's progress by
 * goals while the session is open (remember returns it "посреди занятия").
 */
export const sessionCourse = defineOperation({
  subject: 'lessons.session_course',
  input: z.object({ session: z.string(), user: z.string() }),
  output: z.union([
    z.object({
      found: z.literal(true),
      course: z.string(),
      course_title: z.string(),
      open: z.boolean(),
      objectives: z.array(ObjectiveProgress).optional(),
    }),
    z.object({ found: z.literal(false) }),
  ]),
});
