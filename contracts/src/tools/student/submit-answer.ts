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
    'Отправляет ответ ученика на вопрос квиза, когда он увидел вопрос целиком; ' +
    'вердикт выносит сервер, сами ответы не проверяйте. Верный вариант неверного ответа не называйте до конца попытки. ' +
    'С next_question приходит next: покажите вопрос и ждите. ' +
    'У несданной попытки retry_after — раньше пересдачу не предлагайте — и attempts_left (0 — пересдачи не будет). ' +
    'Отказы: quiz_attempt_cancelled — курс обновился: reason quiz_changed или attempt_outdated — заново request_quiz, lesson_removed — следующий урок; ' +
    'goals_open — отметьте открытый пункт и повторите ответ; student_words_required; answer_unknown — передайте id варианта; ' +
    'attempt_finished; question_mismatch; not_your_session; not_enrolled, organization_suspended; course_not_released; ' +
    'run_archived — урок заново (start_lesson); busy.',
  input: z.object({
    attempt: z.string().describe('id попытки из request_quiz.'),
    question: z.string().describe('id вопроса.'),
    answer: z.string().max(INPUT_LIMITS.summary).describe('id выбранного варианта ("V2") или его текст.'),
    // Optional in the schema only: a missing one is the service's student_words_required.
    student_words: z
      .string()
      .max(INPUT_LIMITS.long)
      .optional()
      .describe(
        'Обязательный: что ученик написал в ответ, дословно, не пересказ — хоть одну цифру; на вердикт не влияет.',
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
