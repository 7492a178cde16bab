import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';
import {
  CourseSpaceArg,
  GoalStatus,
  HomeworkStatus,
  HomeworkTask,
  NextStep,
  ObjectiveStatus,
  OPENINGS,
  StudentReportView,
} from '../shapes.ts';

/** The homework of the previous lesson and the student's submission, without the answer itself. */
export const PreviousHomework = z.looseObject({
  lesson: z.string(),
  lesson_title: z.string().optional(),
  title: z.string(),
  status: HomeworkStatus,
  due_at: Timestamp.nullable(),
  overdue: z.boolean(),
  version: z.number().int().nullable(),
  last_comment: z.string().nullable(),
});

/**
 * Homework of the student's that the curator returned for rework, other than previous_homework's
 * (the last lesson of a course has no next lesson to show it): start_lesson and nothing_to_study.
 */
export const ReturnedHomework = PreviousHomework.extend({
  course: z.string(),
  course_title: z.string().optional(),
  space: z.string(),
});

/** start_lesson: starts (or continues) a lesson session — lesson map, author directives, where to begin. */
export const start_lesson = defineTool({
  name: 'start_lesson',
  surface: 'student',
  service: 'lessons',
  title: 'Начать занятие',
  description:
    'Начинает или продолжает занятие. ' +
    'Без аргументов — урок последнего занятия, если он не пройден, иначе следующий незакрытый урок того же курса; ' +
    'занятий не было (или тот курс пройден) — следующий незакрытый урок курса с ближайшим дедлайном, обязательные и просроченные вперёд. ' +
    'С course — следующий незакрытый урок этого курса, с lesson — этот урок; повторный вызов продолжает занятие. ' +
    'directive и material — только для агента. Начинайте с signals, closed_reports, previous_homework и returned_homework (возвращённые на доработку), затем зачин и цели. ' +
    'Урок с исчерпанными попытками обязательного квиза не зачесть: next_step null, next называет следующий вызов; ' +
    'без lesson он пропускается; курс, где остались только такие уроки, закончен и следующий курс программы не держит. ' +
    'Отказы: nothing_to_study (в нём returned_homework и next_course); lesson_not_found; ' +
    'program_order — сначала предыдущий курс программы; web_demo_exhausted; not_enrolled, organization_suspended; ' +
    'space_not_available, course_not_in_space; course_not_released, busy, run_archived; unknown_channel. ' +
    'Дедлайн прошёл — не отказ, а overdue.',
  input: z.object({
    lesson: z.string().optional().describe('id урока из course_outline.'),
    course: z.string().optional().describe('Взять следующий незакрытый урок этого курса; при lesson не действует.'),
    frame: z
      .boolean()
      .optional()
      .describe('Рамка курса course_frame, по умолчанию true; false — только если её уже получили в этом разговоре.'),
    space: CourseSpaceArg.describe(
      'В чей документ пишет занятие: организация из whoami или personal; без него — пространство начатого занятия по курсу, иначе выбранное.',
    ).optional(),
  }),
  output: z.looseObject({
    session: z.string(),
    space: z.string(),
    lesson: z.looseObject({
      id: z.string(),
      key: z.string().nullable(),
      title: z.string(),
      hook: z.string(),
      chapter: z.string().nullable(),
      course: z.string(),
      overdue: z.boolean(),
      number: z.number().int().optional().describe('Номер урока — в веб-чате'),
      total: z.number().int().optional().describe('Сколько уроков в курсе — в веб-чате'),
      course_title: z.string().optional().describe('Название курса — в веб-чате'),
      demo_lessons_left: z.number().int().optional().describe('Остаток пробных уроков — в веб-чате'),
    }),
    course_promise: z.string(),
    start: z.looseObject({ opening: z.enum(OPENINGS) }),
    lesson_map: z.array(
      z.looseObject({
        key: z.string(),
        text: z.string(),
        status: ObjectiveStatus,
        goals: z.array(
          z.looseObject({
            key: z.string(),
            kind: z.string(),
            required: z.boolean(),
            title: z.string(),
            status: GoalStatus,
          }),
        ),
      }),
    ),
    next_step: NextStep,
    next: z.string(),
    resume_from: z.string().nullable(),
    directive: z.string().nullable(),
    material: z.string().nullable(),
    course_frame: z
      .looseObject({})
      .optional()
      .describe('Рамка курса и что выяснять об ученике — только при frame: true'),
    history: z.looseObject({}).describe('Прошлые уроки с незакрытыми целями и заметки об ученике'),
    closed_reports: z.array(StudentReportView).optional(),
    artifact_blocks: z.array(
      z.looseObject({
        artifact: z.string(),
        key: z.string(),
        title: z.string(),
        description: z.string(),
        filled: z.boolean(),
      }),
    ),
    section_hints: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('По ключу раздела: что и в какие колонки записать'),
    quiz: z.looseObject({
      required: z.boolean(),
      pass_threshold: z.number().nullable(),
      attempts_left: z.number().int().nullable(),
    }),
    homework: HomeworkTask.nullable(),
    previous_homework: PreviousHomework.nullable(),
    returned_homework: z.array(ReturnedHomework).optional(),
    signals: z.array(z.string()).optional(),
    teaching_rules: z.string().optional().describe('Правила старта и разбора; в веб-чате поля нет'),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: [
    'not_enrolled',
    'organization_suspended',
    'space_not_available',
    'course_not_in_space',
    'lesson_not_found',
    'nothing_to_study',
    'web_demo_exhausted',
    'program_order',
    'unknown_channel',
    'course_not_released',
    'busy',
    'run_archived',
  ],
});
