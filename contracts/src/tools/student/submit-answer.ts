import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { Timestamp } from '../../common.ts';
import { defineTool, WRITE } from '../../tool.ts';
import { BlockRef, LessonRef, QuizQuestion } from '../shapes.ts';

/** submit_answer: sends the student's answer and gets the server's verdict and the next question. */
export const submit_answer = defineTool({
  name: 'submit_answer',
  surface: 'student',
  service: 'lessons',
  title: 'Ответить на вопрос квиза',
  description:
    'Отправляет ответ ученика на вопрос квиза и получает вердикт сервера; проверять ответы самому нельзя, зачёт ставит только эта проверка. ' +
    'answer — id выбранного варианта ("V2") или его текст; student_words — дословно, что написал ученик (хоть одну цифру), только после того, как он увидел вопрос целиком. ' +
    'Неверный ответ приходит без верного варианта и пояснения — не называйте их до конца попытки. С next_question приходит next: покажите вопрос целиком и ждите ответа. ' +
    'На последнем вопросе result: score, pass_threshold, passed, objective_results; у сданной — explanations, next_lesson, empty_blocks и teaching_rules; ' +
    'у несданной — retry_after (не предлагайте пересдачу раньше) и attempts_left (0 — пересдачи не будет, null — без лимита). ' +
    'Отказы: quiz_attempt_cancelled — курс обновился: при reason quiz_changed или attempt_outdated запросите request_quiz по session, при lesson_removed перейдите к следующему уроку; ' +
    'goals_open — на последний вопрос, если после request_quiz снова открыт обязательный пункт: разберите его (mark_goal) и отправьте тот же ответ; ' +
    'student_words_required; answer_unknown — ответ не совпал ни с одним вариантом, передайте id; attempt_finished; question_mismatch; not_your_session; not_enrolled, organization_suspended; course_not_released; ' +
    'run_archived — прогресс по курсу сброшен, начните урок заново через start_lesson; busy.',
  input: z.object({
    attempt: z.string().describe('Идентификатор попытки из request_quiz. Обязательный.'),
    question: z.string().describe('Идентификатор вопроса, на который отвечают. Обязательный.'),
    answer: z
      .string()
      .max(INPUT_LIMITS.summary)
      .describe('Ответ строкой: id выбранного варианта ("V2") или текст варианта. Обязательный.'),
    // Optional in the schema only: a missing one is the service's student_words_required.
    student_words: z
      .string()
      .max(INPUT_LIMITS.long)
      .optional()
      .describe(
        'Что ученик написал в ответ на этот вопрос, дословно — не пересказ; ответил одной цифрой или буквой — передаётся она. Обязательный; на вердикт не влияет.',
      ),
  }),
  output: z.looseObject({
    verdict: z.looseObject({
      correct: z.boolean(),
      explanation: z.string().optional().describe('Пояснение — только у верного ответа'),
    }),
    next_question: QuizQuestion.nullable(),
    finished: z.boolean().describe('Попытка завершена'),
    next: z.string().optional().describe('Со следующим вопросом: показать его целиком и ждать ответа ученика'),
    result: z
      .looseObject({
        score: z.number(),
        pass_threshold: z.number(),
        passed: z.boolean(),
        objective_results: z.array(
          z.looseObject({ objective: z.string(), correct: z.number().int(), total: z.number().int() }),
        ),
        session_status: z.string(),
        explanations: z
          .array(z.looseObject({ question: z.string(), explanation: z.string() }))
          .optional()
          .describe('Пояснения автора к неверно отвеченным вопросам — у сданной попытки'),
        next_lesson: LessonRef.nullable().optional(),
        empty_blocks: z.array(BlockRef).optional(),
        retry_after: Timestamp.nullable().optional().describe('С какого момента можно пересдать — у несданной попытки'),
        attempts_left: z.number().int().nullable().optional().describe('Сколько попыток осталось; null — без лимита'),
      })
      .optional()
      .describe('Результат попытки — на последнем вопросе'),
    teaching_rules: z.string().optional().describe('Правила закрытия урока — у сданной попытки; в веб-чате поля нет'),
  }),
  annotations: WRITE,
  refusals: [
    'goals_open',
    'student_words_required',
    'answer_unknown',
    'quiz_attempt_cancelled',
    'attempt_finished',
    'question_mismatch',
    'not_your_session',
    'not_enrolled',
    'organization_suspended',
    'course_not_released',
    'run_archived',
    'busy',
  ],
});
