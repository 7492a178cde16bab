import { z } from 'zod';

/**
 * The canonical release: what `studium release build` makes of a course map and what courses
 * stores and serves. Its digest is the SHA-256 of its canonical JSON (keys sorted, no spaces), so
 * the same map gives the same digest. Keys are stable identifiers chosen by the author; lesson,
 * section and question keys are unique within the course, objective keys within the course too.
 */
export const RELEASE_FORMAT = 1;

/** Kinds of lesson items (spec: term, choice, execution, misconception). */
export const ItemKind = z.enum(['term', 'choice', 'execution', 'misconception']);

/** An item of an objective; its goal key is `<kind>:<id>` (e.g. `term:T1`), unique in the lesson. */
export const ReleaseItem = z.object({
  key: z.string(),
  kind: ItemKind,
  required: z.boolean(),
  title: z.string(),
  /** For the agent (lesson_item), never shown to the student. */
  details: z.string(),
});

export const ReleaseObjective = z.object({
  key: z.string(),
  text: z.string(),
  items: z.array(ReleaseItem),
});

export const ReleaseQuestion = z.object({
  key: z.string(),
  text: z.string(),
  /** Objective key the question checks. */
  objective: z.string().nullable(),
  options: z.array(z.object({ id: z.string(), text: z.string() })),
  /** id of the one correct option. */
  correct: z.string(),
  explanation: z.string(),
});

export const ReleaseQuiz = z.object({
  required: z.boolean(),
  /** Share of correct answers that passes, 0..1. */
  pass_threshold: z.number(),
  /** null: unlimited. */
  attempts: z.number().int().nullable(),
  /** Pause between attempts, minutes. */
  pause_minutes: z.number().int(),
  questions: z.array(ReleaseQuestion),
});

export const ReleaseHomework = z.object({
  description: z.string(),
  answer_mode: z.enum(['text', 'files', 'both']),
  /** Due rule in words the platform understands: days after the lesson closes; null — no due date. */
  due_days: z.number().int().nullable(),
});

export const ReleaseLesson = z.object({
  key: z.string(),
  title: z.string(),
  hook: z.string(),
  objectives: z.array(ReleaseObjective),
  /** Author's instructions to the agent (never shown to the student). */
  directive: z.string(),
  /** Support for the explanation (agent-facing). */
  material: z.string(),
  /** Per document section key: what to write there in this lesson (agent-facing). */
  section_hints: z.record(z.string(), z.string()),
  homework: ReleaseHomework.nullable(),
  quiz: ReleaseQuiz.nullable(),
});

export const ReleaseChapter = z.object({
  key: z.string(),
  title: z.string(),
  description: z.string(),
  lessons: z.array(ReleaseLesson),
});

export const ReleaseSection = z.object({
  key: z.string(),
  title: z.string(),
  /** What goes in, in words for the student. */
  description: z.string(),
  /** Lesson key where the section is usually filled; null — anywhere. */
  lesson: z.string().nullable(),
  rows: z.enum(['many', 'one']),
  /** required: true | false | { if_column: "<column of the same row / field of the same section>" }. */
  columns: z.array(
    z.object({
      key: z.string(),
      title: z.string(),
      required: z.union([z.boolean(), z.object({ if_column: z.string() })]),
    }),
  ),
});

export const ReleaseDocument = z.object({
  key: z.string(),
  title: z.string(),
  /** Why the student keeps it. */
  purpose: z.string(),
  sections: z.array(ReleaseSection),
});

/** The whole release. */
export const Release = z.object({
  format: z.literal(RELEASE_FORMAT),
  course: z.object({
    key: z.string(),
    title: z.string(),
    summary: z.string(),
    description: z.string(),
    /** What the student gets by the end (spoken by the agent at the first lesson). */
    promise: z.string(),
    /** Logins of the curators who lead the course (set on publish). */
    curators: z.array(z.string()),
    /** Course frame for the agent (course_frame). */
    frame: z.string(),
    /** What to learn about the student: note keys (profile or course keys) with the question behind each. */
    learn_about_student: z.array(
      z.object({ key: z.string(), kind: z.enum(['fact', 'project', 'observation']), ask: z.string() }),
    ),
  }),
  document: ReleaseDocument.nullable(),
  chapters: z.array(ReleaseChapter),
});
export type Release = z.infer<typeof Release>;
export type ReleaseLesson = z.infer<typeof ReleaseLesson>;

/**
 * The stable id of a lesson of a course: `<course id>.<lesson key>`. Lesson keys are chosen by the
 * author and survive new releases, so the id does too (the lesson's runs stay attached to it).
 */
export function lessonId(course: string, lessonKey: string): string {
  return `${course}.${lessonKey}`;
}

/** Splits a lesson id into course id and lesson key; null when it is not one. */
export function parseLessonId(id: string): { course: string; key: string } | null {
  const dot = id.indexOf('.');
  if (dot <= 0 || dot === id.length - 1) return null;
  return { course: id.slice(0, dot), key: id.slice(dot + 1) };
}
