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
    'Показывает ученику прямо в чате окно сдачи файлов домашнего задания урока: до 10 файлов в ответе, каждый до 10 МБ, за раз до 30 МБ. ' +
    'Пространство окно фиксирует при открытии; файлы уходят на платформу мимо модели одной версией ответа, и окно само напишет в разговор «Сдал файлы домашнего задания…». ' +
    'Клиенту без MCP Apps приходит ссылка на урок (lesson_url): попросите ученика прикрепить файлы в блоке «Домашнее задание» там. ' +
    'Отказы: no_homework; answer_mode — задание сдаётся только текстом, через submit_homework; accepted_locked — домашку уже приняли; ' +
    'not_enrolled, organization_suspended, space_not_available, course_not_in_space, lesson_not_found.',
  input: z.object({
    lesson: z.string().describe('Идентификатор урока. Обязательный.'),
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
