import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, READ } from '../../tool.ts';

/** choose: offers the student a choice as buttons in the chat. */
export const choose = defineTool({
  name: 'choose',
  surface: 'student',
  service: 'edge',
  title: 'Выбор кнопками',
  description:
    'Предлагает ученику выбор кнопками в чате: вопрос prompt, варианты options, заголовок title. ' +
    'После вызова закончите реплику и ждите: нажатая кнопка придёт репликой ««вопрос» — выбираю: вариант», ответ своими словами — тоже выбор. ' +
    'Без MCP Apps сервер ответит текстом: задайте вопрос словами. Своих отказов нет.',
  input: z.object({
    prompt: z.string().min(1).max(INPUT_LIMITS.summary),
    options: z.array(z.string().max(INPUT_LIMITS.title)).min(1),
    title: z.string().max(INPUT_LIMITS.title).optional(),
  }),
  output: z.looseObject({
    /** card — the client draws buttons; text — it cannot, and the agent asks in words. */
    shown: z.enum(['card', 'text']),
    prompt: z.string(),
    options: z.array(z.string()),
    title: z.string().optional(),
    /** What the agent does now, as a phrase. */
    next: z.string(),
  }),
  annotations: READ,
  refusals: [],
});
