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
    'Начинает проверку знаний урока, когда закрыты все обязательные пункты, и возвращает попытку attempt и первый вопрос question ' +
    '(текст, варианты с id без признака правильности, номер и сколько всего). Открытая попытка возвращается, вторая не заводится. ' +
    'Покажите вопрос целиком — текст и все варианты — и ждите ответа ученика: отвечать за него нельзя; ответ передаёт submit_answer. ' +
    'previous_attempt_cancelled — прежнюю попытку аннулировало обновление курса: скажите ученику, что курс обновился и вопросы начались заново. ' +
    'Отказы: goals_open — в goals открытые пункты, разберите их (mark_goal); quiz_not_configured — закройте урок complete_lesson; ' +
    'quiz_attempts_exhausted (attempts_used); retry_too_soon (retry_after); not_your_session; session_closed (status) — занятие закрыто, вернитесь к уроку через start_lesson; not_enrolled, organization_suspended; ' +
    'course_not_released, lesson_not_in_release, run_archived, busy — отказы цепочки урока.',
  input: z.object({
    session: z.string().describe('Идентификатор занятия. Обязательный.'),
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
