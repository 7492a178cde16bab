import { z } from 'zod';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';
import { CANCEL_REASONS, QuizQuestion } from '../shapes.ts';

/** request_quiz: starts the lesson's knowledge check and returns the first question. */
export const request_quiz = defineTool({
  name: 'request_quiz',
  surface: 'student',
  service: 'lessons',
  title: 'Начать проверку знаний',
  description:
    'Начинает квиз урока, когда закрыты обязательные пункты: attempt и первый вопрос (открытая попытка возвращается). ' +
    'Покажите вопрос целиком — текст и все варианты — и ждите ответа ученика: отвечать за него нельзя. ' +
    'previous_attempt_cancelled — курс обновился: скажите, что вопросы начались заново. ' +
    'Отказы: goals_open — разберите пункты из goals; quiz_not_configured — complete_lesson; quiz_attempts_exhausted; ' +
    'retry_too_soon (retry_after); session_closed — start_lesson; not_your_session; not_enrolled, organization_suspended; ' +
    'course_not_released, lesson_not_in_release, run_archived, busy.',
  input: z.object({
    session: z.string().describe('id занятия.'),
  }),
  output: z.looseObject({
    attempt: z.string(),
    question: QuizQuestion,
    next: z.string(),
    teaching_rules: z.string().optional().describe('Правила проверки знаний; в веб-чате поля нет'),
    previous_attempt_cancelled: z
      .looseObject({ attempt: z.string(), reason: z.enum(CANCEL_REASONS) })
      .optional()
      .describe('Аннулированная попытка по этому уроку, о которой агенту ещё не сообщали'),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: [
    'not_your_session',
    'session_closed',
    'goals_open',
    'quiz_not_configured',
    'quiz_attempts_exhausted',
    'retry_too_soon',
    'not_enrolled',
    'organization_suspended',
    'course_not_released',
    'lesson_not_in_release',
    'run_archived',
    'busy',
  ],
});
