import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { CuratorNote } from '../shapes.ts';

/** course_notes: the curator's notes on the course, keyed by release places. */
export const course_notes = defineTool({
  name: 'course_notes',
  surface: 'curator',
  service: 'courses',
  title: 'Заметки куратора',
  description:
    'Заметки куратора к курсу из кабинета автора, старые сверху; с этой очереди стоит начинать работу над курсом. ' +
    'status: open (в работе, по умолчанию), done (сделано, ждёт проверки куратора), accepted (принято) или null — все; lesson — ключ урока, находятся и заметки снятого урока. ' +
    'У заметки note, release и version (к которым написана), target, lesson_key, label, quote, text, автор и время, нить replies и waiting_on — чей ход: agent или author; ' +
    'missing: true — места нет в действующем релизе. Ключи мест: course, chapter.<ключ>, lesson.<ключ>, objective.<ключ>, goal.<урок>/<пункт>, question.<ключ>, ' +
    'section.<ключ>, agent.frame, agent.lesson.<ключ>, agent.item.<урок>/<пункт>, map.<узел>. ' +
    'Ответить в нить — reply_note, отметить сделанной — resolve_note. Отказы: course_not_found; invalid_note — неизвестный статус.',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
    status: z
      .string()
      .nullable()
      .optional()
      .describe('open (по умолчанию), done или accepted; null — все. Необязательный.'),
    lesson: z.string().optional().describe('Ключ урока: заметки к уроку и местам внутри него. Необязательный.'),
  }),
  output: z.looseObject({
    notes: z.array(
      z.looseObject({
        ...CuratorNote.shape,
        quote: z.string().nullable(),
        text: z.string(),
        author: z.string(),
        created_at: Timestamp,
        replies: z.array(z.looseObject({ author: z.string(), text: z.string(), created_at: Timestamp })),
      }),
    ),
  }),
  annotations: READ,
  refusals: ['course_not_found', 'invalid_note'],
});
