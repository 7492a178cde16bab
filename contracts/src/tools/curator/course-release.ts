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
    'Действующий релиз курса — то, что сейчас у учеников; только чтение, правка — новым релизом конвейера. course — карточка: ключ курса, название, release, version, кто и когда опубликовал. ' +
    'Без lesson — ещё chapters, lessons по порядку (глава, зачин, порог зачёта, разделы документа, домашнее задание, цели с пунктами, questions с верным вариантом correct и пояснением) и document. ' +
    'С lesson (ключ урока) — только этот урок и agent — пакет агента: рамка курса (frame, learn_about_student) и срез урока, то, что агент ученика получает на занятии. ' +
    'Отсюда берут ключи мест для add_note. Отказы: course_not_found; course_not_released — у курса нет релиза; lesson_not_in_release — урока с таким ключом в релизе нет (course, lesson_key, release).',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
    lesson: z
      .string()
      .optional()
      .describe('Ключ урока. Необязательный; с ним приходит только этот урок и срез пакета агента для него.'),
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
