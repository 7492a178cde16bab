import { z } from 'zod';
import { deepStrings, INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE } from '../../tool.ts';
import { CourseSpaceArg, LIMITS, SubmissionResult } from '../shapes.ts';
import { SUBMIT_HOMEWORK_REFUSALS } from './submit-homework.ts';

/** store_homework_file: submits the files dropped into the homework window (called by the window, not the model). */
export const store_homework_file = defineTool({
  name: 'store_homework_file',
  surface: 'student',
  service: 'homework',
  title: 'Сдать файлы домашнего задания',
  description:
    'Сдаёт файлы, брошенные учеником в окно домашнего задания (upload_homework_file). Зовёт его само окно по кнопке «Сдать» (visibility: app), а не модель: ' +
    'байты идут base64 мимо контекста модели, прямо на платформу от имени ученика. ' +
    'Все файлы окна уходят одной версией ответа, текст ответа остаётся прежним; space — пространство, зафиксированное окном при открытии. ' +
    'Страница урока передаёт ещё answer — текст ответа той же версией (заменяет прежний целиком, как у submit_homework). ' +
    'Ответ как у submit_homework: space и submission с версиями. Отказы как у submit_homework: too_many_files, file_too_large, answer_too_large, ' +
    'file_rejected, file_missing, invalid_files, accepted_locked, answer_mode, no_homework, empty_answer, lesson_not_found, busy и отказы доступа: ' +
    'not_enrolled, organization_suspended, space_not_available, course_not_in_space.',
  input: z.object({
    lesson: z.string().describe('Идентификатор урока. Обязательный.'),
    // base64 of up to LIMITS.homeworkFileBytes per file: its strings are bounded by that, not by the default.
    // Optional in the schema only: none is the service's file_missing.
    files: deepStrings(
      z
        .unknown()
        .describe('Файлы из зоны загрузки: список {name, content} — имя и содержимое base64. Обязательный, непустой.'),
      Math.ceil((LIMITS.homeworkFileBytes * 4) / 3) + 4,
    ).optional(),
    answer: z
      .string()
      .max(INPUT_LIMITS.answer)
      .describe(
        'Текст ответа, markdown, той же версией, что и файлы; заменяет прежний целиком. Необязательный; без него текст остаётся прежним.',
      )
      .optional(),
    space: CourseSpaceArg.describe(
      'Пространство сдачи — то, в котором открыли окно. Необязательный; без него — пространство начатого занятия по курсу, иначе выбранное.',
    ).optional(),
  }),
  output: SubmissionResult,
  annotations: WRITE,
  refusals: SUBMIT_HOMEWORK_REFUSALS,
});
