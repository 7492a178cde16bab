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
    'Заметки куратора к курсу course, старые сверху; с них стоит начинать работу. ' +
    'status: open (по умолчанию), done — ждёт проверки куратора, accepted, null — все; lesson — ключ урока (и снятого). ' +
    'waiting_on — чей ход: agent или author; missing: true — места нет в действующем релизе. ' +
    'Ключи мест: course, chapter.<ключ>, lesson.<ключ>, objective.<ключ>, goal.<урок>/<пункт>, question.<ключ>, section.<ключ>, agent.frame, agent.lesson.<ключ>, agent.item.<урок>/<пункт>, map.<узел>. ' +
    'Ответить — reply_note, отметить сделанной — resolve_note. Отказы: course_not_found; invalid_note — неизвестный статус.',
  input: z.object({
    course: z.string(),
    status: z.string().nullable().optional(),
    lesson: z.string().optional(),
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
