import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { ArtifactColumn, HomeworkTask } from '../shapes.ts';

/** A lesson of a release as the curator sees it, quiz answers included. */
export const ReleaseLesson = z.looseObject({
  key: z.string(),
  title: z.string(),
  chapter: z.string().nullable(),
  hook: z.string().nullable(),
  pass_threshold: z.number().nullable(),
  blocks: z.array(z.looseObject({ artifact: z.string().optional(), key: z.string(), title: z.string().optional() })),
  homework: HomeworkTask.nullable(),
  objectives: z.array(
    z.looseObject({
      key: z.string(),
      text: z.string(),
      goals: z.array(z.looseObject({ key: z.string(), kind: z.string(), required: z.boolean(), title: z.string() })),
    }),
  ),
  questions: z.array(
    z.looseObject({
      key: z.string(),
      text: z.string(),
      options: z.array(z.looseObject({ id: z.string(), text: z.string() })),
      correct: z.string(),
      explanation: z.string().nullable(),
    }),
  ),
});

/** course_release: the course's active release, with quiz answers and the lesson's agent pack. */
export const course_release = defineTool({
  name: 'course_release',
  surface: 'curator',
  service: 'courses',
  title: 'Действующий релиз курса',
  description:
    'Действующий релиз курса course — то, что сейчас у учеников; правят его только новым релизом. ' +
    'Без lesson — главы, уроки по порядку (цели с пунктами, вопросы с верным вариантом и пояснением) и документ; ' +
    'с lesson (ключ урока) — этот урок и agent — пакет, который агент ученика получает на занятии. ' +
    'Отсюда берут ключи мест для add_note. Отказы: course_not_found; course_not_released; ' +
    'lesson_not_in_release — урока с таким ключом нет.',
  input: z.object({
    course: z.string(),
    lesson: z.string().optional(),
  }),
  output: z.looseObject({
    course: z.looseObject({
      course: z.string().optional(),
      course_key: z.string(),
      title: z.string(),
      release: z.string(),
      version: z.number().int(),
      published_at: Timestamp,
      published_by: z.string(),
    }),
    chapters: z
      .array(z.looseObject({ key: z.string(), title: z.string() }))
      .optional()
      .describe('Без lesson'),
    lessons: z.array(ReleaseLesson).optional().describe('Без lesson'),
    document: z
      .looseObject({
        key: z.string(),
        title: z.string(),
        blocks: z.array(
          z.looseObject({
            key: z.string(),
            title: z.string(),
            rows: z.enum(['many', 'one']),
            columns: z.array(ArtifactColumn),
          }),
        ),
      })
      .nullable()
      .optional()
      .describe('Документ курса по разделам — без lesson; null, если документа нет'),
    lesson: ReleaseLesson.optional().describe('С lesson'),
    agent: z
      .looseObject({
        frame: z.unknown(),
        learn_about_student: z.unknown(),
        lesson: z.unknown(),
      })
      .optional()
      .describe('Пакет агента — только с lesson'),
  }),
  annotations: READ,
  refusals: ['course_not_found', 'course_not_released', 'lesson_not_in_release'],
});
