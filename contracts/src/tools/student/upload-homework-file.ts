import { z } from 'zod';
import { defineTool, READ } from '../../tool.ts';
import { CourseSpaceArg } from '../shapes.ts';

/** upload_homework_file: shows the student a window in the chat to submit homework files. */
export const upload_homework_file = defineTool({
  name: 'upload_homework_file',
  surface: 'student',
  service: 'homework',
  title: 'Окно сдачи файлов',
  description:
    'Окно в чате для сдачи файлов домашки урока lesson: до 10 файлов в ответе, каждый до 10 МБ, за раз до 30 МБ; ' +
    'файлы идут мимо модели, окно само напишет в разговор. Без MCP Apps придёт lesson_url: попросите прикрепить файлы там. ' +
    'Отказы: no_homework; answer_mode — только текстом (submit_homework); accepted_locked; ' +
    'not_enrolled, organization_suspended, space_not_available, course_not_in_space, lesson_not_found.',
  input: z.object({
    lesson: z.string(),
    space: CourseSpaceArg.optional(),
  }),
  output: z.looseObject({
    lesson: z.string(),
    space: z.string(),
    lesson_url: z.string(),
    title: z.string().optional().describe('Название задания'),
  }),
  annotations: READ,
  refusals: [
    'no_homework',
    'answer_mode',
    'accepted_locked',
    'not_enrolled',
    'organization_suspended',
    'space_not_available',
    'course_not_in_space',
    'lesson_not_found',
  ],
});
