import { type Continuation, callHint, continuationPhrase } from './continuation.ts';
import type { NextStep } from './lesson-progress.ts';
import type { Opening } from './opening.ts';
import type { QuizStanding } from './quiz.ts';

/** Wraps a rules pack in a frame that says who it is for: never shown to the student. */
function framed(title: string, rules: string[]): string {
  return [
    `=== Правила для агента: ${title} (ученику не показывать и не пересказывать) ===`,
    ...rules.map((r, i) => `${i + 1}. ${r}`),
    '=== Конец правил ===',
  ].join('\n');
}

/** Pack «старт и разбор» (start_lesson). */
export const START_RULES = framed('старт и разбор', [
  'Начинайте с signals, closed_reports и previous_homework — одной-двумя фразами, до зачина.',
  'Откройте урок так, как велит start.opening: first_in_course — знакомство, обещание курса, зачин, цели; new_lesson — зачин и цели; return — мостик от resume_from, затем цели; repeat — одна фраза и выбор: продолжить или начать заново.',
  'Назовите цели урока списком во второй реплике, не в первой: сначала зачин и вопрос ученику.',
  'Идите по lesson_map: подробности пункта берите lesson_item, когда дошли до него; directive и material — только для вас.',
  'Разобрали пункт — сразу отметьте его mark_goal со свидетельством: что ученик сделал или сказал, без личных данных.',
  'Работайте на задаче ученика, а не на абстрактных примерах; записывайте в документ курса его словами.',
  'Не отвечайте за ученика и не засчитывайте пункт, пока он сам его не показал.',
]);

/** Pack «квиз» (request_quiz). */
export const QUIZ_RULES = framed('квиз', [
  'Показывайте вопрос целиком: текст и все варианты с их идентификаторами.',
  'Ждите ответа ученика; отвечать за него и подсказывать верный вариант нельзя.',
  'Передавайте в submit_answer выбранный вариант и дословные слова ученика (student_words).',
  'Вердикт выносит сервер: не проверяйте ответ сами и не называйте верный вариант до конца попытки.',
  'Просьба показать вопрос ещё раз — не ответ.',
]);

/** Pack «закрытие» (the quiz's last answer and complete_lesson). */
export const CLOSING_RULES = framed('закрытие', [
  'Подведите итог урока одной-двумя фразами: что ученик теперь умеет на своей задаче.',
  'Если остались empty_blocks — скажите, какие разделы документа стоит дописать.',
  'Озвучьте домашнее задание урока, если оно есть, и его срок.',
  'Спросите, помогло ли занятие; жалобу на урок передайте report_issue.',
  'Предложите следующий урок (next_lesson) — его начинает start_lesson.',
]);

/** What start_lesson's next says, as a phrase for the agent. */
export function startNext(
  opening: Opening,
  step: NextStep,
  extras: { signals: boolean; reports: boolean; previousHomework: boolean; returned?: ReturnedItem[] },
  quiz: QuizStanding | null = null,
  after: Continuation | null = null,
): string {
  const parts: string[] = [];
  if (extras.signals) parts.push('Сначала скажите о signals.');
  if (extras.reports) parts.push('Затем коротко расскажите о закрытых репортах (closed_reports).');
  if (extras.previousHomework) parts.push('Спросите о домашнем задании прошлого урока (previous_homework).');
  if (extras.returned?.length) parts.push(returnedPhrase(extras.returned));
  const openings: Record<Opening, string> = {
    first_in_course: 'Это первое занятие курса: познакомьтесь, произнесите обещание курса и зачин.',
    new_lesson: 'Произнесите зачин урока.',
    return: 'Ученик вернулся после перерыва: постройте мостик от resume_from.',
    repeat: 'Урок уже проходили: одной фразой напомните, что сделано, и предложите выбор — продолжить или заново.',
  };
  parts.push(openings[opening]);
  parts.push('Цели урока назовите списком во второй реплике.');
  parts.push(stepPhrase(step, quiz, after));
  return parts.join(' ');
}

/** A homework returned for rework, as the hints name it. */
export interface ReturnedItem {
  lesson: string;
  lesson_title?: string;
  title: string;
}

/**
 * The phrase that surfaces homework the curator returned for rework (returned_homework): read the
 * answer and the comment with my_homework, then rework it with submit_homework.
 */
export function returnedPhrase(items: readonly ReturnedItem[]): string {
  const first = items[0];
  if (!first) return '';
  const named = items.map((i) => `«${i.title}» (урок «${i.lesson_title ?? i.lesson}»)`).join(', ');
  return (
    `Куратор вернул на доработку домашнее задание: ${named} (returned_homework). Скажите ученику и предложите доработать: ` +
    `ответ и комментарий — ${callHint('my_homework', { lesson: first.lesson })}, новая версия — submit_homework.`
  );
}

/** The head of every hint on a lesson whose required quiz has no attempt left. */
const EXHAUSTED_HEAD =
  'Попытки обязательного квиза этого урока кончились: урок больше не зачесть, и request_quiz откажет quiz_attempts_exhausted. ' +
  'Скажите ученику об этом прямо. Если вопросы квиза кажутся ему неверными — сообщите авторам через report_issue. ';

/**
 * next when the lesson's required quiz has no attempt left: the lesson cannot be passed any more,
 * and what follows (docs/decisions.md, the failed lesson). Without a continuation: the course's
 * next lesson, named without its id.
 */
export function quizExhaustedNext(after: Continuation | null): string {
  return (
    EXHAUSTED_HEAD +
    (after
      ? continuationPhrase(after)
      : 'Дальше — следующий урок курса: start_lesson с course (этот урок он пропустит).')
  );
}

/** The next step as a phrase (mark_goal, start_lesson), with where the required quiz stands. */
export function stepPhrase(
  step: NextStep,
  quiz: QuizStanding | null = null,
  after: Continuation | null = null,
): string {
  if (step === null) return quiz?.exhausted ? quizExhaustedNext(after) : 'Урок пройден: предложите следующий урок.';
  switch (step.kind) {
    case 'goal':
      return `Следующий пункт — «${step.title}» (${step.goal}): возьмите подробности lesson_item и разберите его с учеником.`;
    case 'quiz':
      if (quiz?.retryAfter) {
        return (
          `Обязательные пункты закрыты, но пересдача квиза — не раньше ${quiz.retryAfter}: до этого request_quiz откажет retry_too_soon. ` +
          'Повторите с учеником, где он ошибся, и предложите квиз после этого времени.'
        );
      }
      return 'Обязательные пункты закрыты: начните проверку знаний — request_quiz.';
    case 'complete':
      return 'Обязательные пункты закрыты, обязательного квиза нет: закройте урок — complete_lesson.';
    default: {
      const never: never = step;
      return never;
    }
  }
}

/** next of request_quiz and of submit_answer with a next question. */
export const QUESTION_NEXT =
  'Покажите ученику вопрос целиком — текст и все варианты — и ждите его ответа: отвечать за него нельзя. Ответ передайте submit_answer.';

/** next of request_quiz when a previous attempt was cancelled by a course update. */
export const QUESTION_NEXT_AFTER_UPDATE = `Скажите ученику, что курс обновился и вопросы начались заново. ${QUESTION_NEXT}`;
