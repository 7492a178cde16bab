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
    'Предлагает ученику выбор кнопками прямо в чате: вопрос prompt и варианты options, по кнопке на каждый. ' +
    'Зовите, когда нужен выбор из готовых вариантов, — например, разобрать сначала тему или сразу работать на задаче ученика. ' +
    'После вызова закончите реплику и ждите: нажатая кнопка придёт репликой ученика ««вопрос» — выбираю: вариант», ответ своими словами тоже считается выбором. ' +
    'Клиент без MCP Apps кнопок не покажет, и сервер ответит текстом: тогда задайте вопрос словами и не ждите клика. ' +
    'Своих отказов нет: пустой prompt или ни одного непустого варианта — invalid_arguments.',
  input: z.object({
    prompt: z.string().min(1).max(INPUT_LIMITS.summary).describe('Вопрос ученику. Обязательный, непустой.'),
    options: z
      .array(z.string().max(INPUT_LIMITS.title))
      .min(1)
      .describe('Варианты ответа, по кнопке на каждый. Обязательный, хотя бы один непустой.'),
    title: z.string().max(INPUT_LIMITS.title).optional().describe('Заголовок карточки. Необязательный.'),
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
