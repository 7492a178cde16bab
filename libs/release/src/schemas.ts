import { z } from 'zod';

// The fields of each map file. Top-level fields and the elements of the big lists (objectives,
// questions, sections) are checked one by one (YamlFile.fields / YamlFile.each), so one wrong field
// does not hide the errors of the rest of the file.

/** What a key may look like: it becomes part of note places (`goal.<lesson>/<item>`), so no dots, slashes or spaces. */
export const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const Key = z
  .string()
  .regex(KEY_PATTERN, 'a key is 1–64 latin letters, digits, "-" or "_", starting with a letter or digit');
/** Text the author must give (titles, question texts). */
const Text = z.string().refine((s) => s.trim() !== '', 'must not be empty');
/** Text that may be left out or empty (student-facing ones are warned about, see warnings.ts). */
const OptText = z.string().nullable().optional();
/** A list whose elements are checked one by one with `each`. */
const List = (what: string) => z.array(z.unknown()).min(1, `list at least one ${what}`);

/** A small mapping checked as a whole, rejecting unknown fields (typos); the message lists the known ones. */
function strict<S extends z.ZodRawShape>(shape: S) {
  const known = Object.keys(shape).join(',');
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `known:${known}` : undefined),
  });
}

/** course.yaml: the course card, promise, curators, what to learn about the student, chapter order. */
export const CourseShape = {
  key: Key,
  title: Text,
  summary: OptText,
  description: OptText,
  promise: OptText,
  frame: OptText,
  curators: z.array(z.string().regex(/^\S+$/, 'a login has no spaces')).min(1, 'name at least one curator login'),
  learn_about_student: z
    .array(
      strict({
        key: Key,
        kind: z.enum(['fact', 'project', 'observation'], { error: 'must be fact, project or observation' }),
        ask: Text,
      }),
    )
    .nullable()
    .optional(),
  chapters: z.array(Key).min(1, 'list at least one chapter'),
};

/** chapters/<chapter>/chapter.yaml: title, description, lesson order. */
export const ChapterShape = {
  title: Text,
  description: OptText,
  lessons: z.array(Key).min(1, 'list at least one lesson'),
};

/** chapters/<chapter>/<lesson>/lesson.yaml (objectives are checked one by one with ObjectiveShape). */
export const LessonShape = {
  title: Text,
  hook: OptText,
  objectives: List('objective'),
  directive: OptText,
  material: OptText,
  section_hints: z.record(Key, Text).nullable().optional(),
  homework: strict({
    description: OptText,
    answer_mode: z.enum(['text', 'files', 'both'], { error: 'must be text, files or both' }),
    due_days: z.number().int('must be a whole number of days').min(1, 'must be at least 1').nullable().optional(),
  })
    .nullable()
    .optional(),
};

/** An objective of lesson.yaml and its items; an item's goal key is `<kind>:<id>`. */
export const ObjectiveShape = {
  key: Key,
  text: Text,
  items: z
    .array(
      strict({
        kind: z.enum(['term', 'choice', 'execution', 'misconception'], {
          error: 'must be term, choice, execution or misconception',
        }),
        id: Key,
        required: z.boolean().optional(),
        title: Text,
        details: OptText,
      }),
    )
    .min(1, 'an objective needs at least one item'),
};

/** chapters/<chapter>/<lesson>/quiz.yaml (questions are checked one by one with QuestionShape). */
export const QuizShape = {
  required: z.boolean(),
  pass_threshold: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1'),
  attempts: z.number().int('must be a whole number').min(1, 'must be at least 1').nullable().optional(),
  pause_minutes: z.number().int('must be a whole number of minutes').min(0, 'must not be negative').optional(),
  questions: List('question'),
};

/** A question of quiz.yaml: options without `id` get V1, V2… by position. */
export const QuestionShape = {
  key: Key,
  text: Text,
  objective: Key.nullable().optional(),
  options: z
    .array(strict({ id: Key.optional(), text: Text, correct: z.boolean().optional() }))
    .min(2, 'a question needs at least two options'),
  explanation: OptText,
};

/** document.yaml: the course document (sections are checked one by one with SectionShape). */
export const DocumentShape = {
  key: Key,
  title: Text,
  purpose: OptText,
  sections: List('section'),
};

/** A section of document.yaml: rows many (a log) or one (a form), and its columns (fields). */
export const SectionShape = {
  key: Key,
  title: Text,
  description: OptText,
  lesson: Key.nullable().optional(),
  rows: z.enum(['many', 'one'], { error: 'must be many or one' }),
  columns: z
    .array(
      strict({
        key: Key,
        title: Text,
        required: z
          .union([z.boolean(), strict({ if_column: Key })], {
            error: 'must be true, false or {if_column: <column key>}',
          })
          .optional(),
      }),
    )
    .min(1, 'a section needs at least one column'),
};
