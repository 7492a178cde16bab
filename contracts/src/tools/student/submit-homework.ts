import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE } from '../../tool.ts';
import { CourseSpaceArg, SubmissionResult } from '../shapes.ts';

/** Refusals of submit_homework (store_homework_file answers the same). */
export const SUBMIT_HOMEWORK_REFUSALS = [
  'not_enrolled',
  'organization_suspended',
  'space_not_available',
  'course_not_in_space',
  'lesson_not_found',
  'no_homework',
  'empty_answer',
  'answer_mode',
  'accepted_locked',
  'too_many_files',
  'file_too_large',
  'answer_too_large',
  'file_rejected',
  'file_missing',
  'invalid_files',
  'busy',
] as const;

/** submit_homework: submits or edits the text of a lesson's homework. */
export const submit_homework = defineTool({
  name: 'submit_homework',
  surface: 'student',
  service: 'homework',
  title: 'Сдать домашнее задание',
  description:
    'Сдаёт или правит текст домашки урока lesson — новой версией Submitted. ' +
    'Текст заменяет прежний целиком: дополняя, сначала прочитайте его (my_homework с lesson). Файлы остаются; ' +
    'их сдают окном upload_homework_file. Отказы: no_homework; empty_answer; answer_mode — только файлами; ' +
    'accepted_locked — принята, правка закрыта; busy — повторите; ' +
    'not_enrolled, organization_suspended, space_not_available, course_not_in_space, lesson_not_found; ' +
    'too_many_files, file_too_large, answer_too_large, file_rejected, file_missing, invalid_files.',
  input: z.object({
    lesson: z.string(),
    answer: z.string().max(INPUT_LIMITS.answer).describe('Текст ответа, markdown.'),
    space: CourseSpaceArg.optional(),
  }),
  output: SubmissionResult,
  annotations: WRITE,
  refusals: SUBMIT_HOMEWORK_REFUSALS,
});
