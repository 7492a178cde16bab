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
    'Сдаёт файлы из окна upload_homework_file одной версией ответа к уроку lesson; зовёт окно (visibility: app), а не модель. ' +
    'answer со страницы урока заменяет текст той же версией. ' +
    'Отказы как у submit_homework: too_many_files, file_too_large, answer_too_large, file_rejected, file_missing, invalid_files, accepted_locked, answer_mode, no_homework, empty_answer, lesson_not_found, busy, not_enrolled, organization_suspended, space_not_available, course_not_in_space.',
  input: z.object({
    lesson: z.string(),
    // base64 of up to LIMITS.homeworkFileBytes per file: its strings are bounded by that, not by the default.
    // Optional in the schema only: none is the service's file_missing.
    files: deepStrings(
      z.unknown().describe('Обязательный, непустой: список {name, content} — имя и содержимое base64.'),
      Math.ceil((LIMITS.homeworkFileBytes * 4) / 3) + 4,
    ).optional(),
    answer: z
      .string()
      .max(INPUT_LIMITS.answer)

      .optional(),
    space: CourseSpaceArg.describe('Пространство, в котором открыли окно.').optional(),
  }),
  output: SubmissionResult,
  annotations: WRITE,
  refusals: SUBMIT_HOMEWORK_REFUSALS,
});
