import { LIMITS, refuse } from '@studium/contracts';
import { type Continuation, callHint, continuationPhrase } from './domain/continuation.ts';
import type { OpenGoal } from './domain/lesson-progress.ts';
import { type ReturnedItem, returnedPhrase } from './domain/teaching-rules.ts';

/** The course that follows in the student's program, as nothing_to_study names it. */
export interface NextCourse {
  course: string;
  title: string;
  program_title: string;
  /** The student is enrolled in it (else enroll comes first). */
  enrolled: boolean;
}

/** Refusals of the lesson tools, with the spec's codes and Russian messages. */
export const refusals = {
  /** Access to the course in the session's space was revoked (e.g. the organization removed the student). */
  accessRevoked: (course: string, space: string) =>
    refuse('not_enrolled', 'Доступ к курсу в пространстве этого занятия отозван: выберите курс из list_my_courses', {
      course,
      space,
    }),
  notYourSession: (session: string) =>
    refuse('not_your_session', 'Такого занятия у ученика нет: начните своё через start_lesson', { session }),
  /** not_your_session of submit_answer: the attempt is unknown or another student's. */
  notYourAttempt: (attempt: string) =>
    refuse('not_your_session', 'Такой попытки у ученика нет: запросите квиз своего занятия через request_quiz', {
      attempt,
    }),
  sessionClosed: (session: string, status: string) =>
    refuse(
      'session_closed',
      status === 'closed'
        ? 'Занятие уже закрыто: чтобы вернуться к уроку, вызовите start_lesson — он заведёт новое занятие'
        : 'Занятие брошено: продолжите урок в новом занятии через start_lesson',
      { session, status },
    ),
  courseNotReleased: (course: string) =>
    refuse(
      'course_not_released',
      'Курс не выпущен релизом, и занятия с агентом по нему нет: предложите ученику другой курс',
      {
        course,
      },
    ),
  lessonNotInRelease: (course: string, lessonKey: string, release: string) =>
    refuse(
      'lesson_not_in_release',
      'Урок снят из действующего релиза курса: перейдите к следующему уроку, какие уроки есть — course_outline',
      { course, lesson_key: lessonKey, release },
    ),
  lessonNotFound: (lesson: string) =>
    refuse('lesson_not_found', 'Такого урока нет: возьмите идентификатор урока из course_outline', { lesson }),
  /**
   * nothing_to_study, with what the agent can do instead: the next course of the student's program
   * (next_course) and homework returned for rework (returned_homework), each named in the message.
   */
  nothingToStudy: (
    course?: string,
    then: { nextCourse?: NextCourse | null; returned?: readonly ReturnedItem[] } = {},
  ) => {
    const parts = [course ? 'В этом курсе незакрытых уроков не осталось' : 'Незакрытых уроков не осталось'];
    // Homework waiting for rework first, as start_lesson puts previous_homework before the lesson.
    if (then.returned?.length) parts.push(returnedPhrase(then.returned));
    const next = then.nextCourse;
    if (next) {
      const start = callHint('start_lesson', { course: next.course });
      parts.push(
        next.enrolled
          ? `Дальше — курс «${next.title}» программы «${next.program_title}»: ${start}.`
          : `Дальше — курс «${next.title}» программы «${next.program_title}»: ${callHint('enroll', { course: next.course })}, затем ${start}.`,
      );
    }
    // The bare refusal keeps its short message; with a way on, each part is a sentence.
    const message = parts.length === 1 ? parts[0] : `${parts[0]}. ${parts.slice(1).join(' ')}`;
    return refuse('nothing_to_study', message as string, {
      ...(course ? { course } : {}),
      ...(next ? { next_course: next } : {}),
      ...(then.returned?.length ? { returned_homework: then.returned } : {}),
    });
  },
  /** program_order with the fields of enroll's (program, program_title, previous). */
  programOrder: (p: { program: string; program_title?: string; course: string; title: string }) =>
    refuse(
      'program_order',
      p.program_title
        ? `Курс в программе «${p.program_title}» идёт после курса «${p.title}»: сначала пройдите его`
        : `Курс заперт программой: сначала пройдите курс «${p.title}»`,
      {
        program: p.program,
        program_title: p.program_title ?? p.program,
        previous: { course: p.course, title: p.title },
      },
    ),
  unknownChannel: (channel: string) =>
    refuse('unknown_channel', 'Канал занятия должен быть agent или web', { channel, allowed: ['agent', 'web'] }),
  webDemoExhausted: (used: number, limit: number) =>
    refuse('web_demo_exhausted', 'В веб-чате пройдены все пробные уроки: продолжайте занятия со своим агентом', {
      lessons_used: used,
      lessons_limit: limit,
    }),
  busy: () => refuse('busy', 'Это занятие сейчас меняет другой запрос: повторите вызов один раз'),
  runArchived: (course: string, lessonKey: string) =>
    refuse(
      'run_archived',
      'Прогресс ученика по курсу сброшен, прохождение в архиве: начните урок заново через start_lesson',
      {
        course,
        lesson_key: lessonKey,
      },
    ),
  goalsOpen: (goals: OpenGoal[]) =>
    refuse('goals_open', 'Сначала разберите обязательные пункты урока: mark_goal', { goals }),
  goalUnknown: (goal: string, goals: string[]) =>
    refuse('goal_unknown', 'В уроке нет такого пункта: возьмите ключ из lesson_map', { goal, goals }),
  goalRemoved: (goal: string) =>
    refuse('goal_removed', 'Пункт снят из урока новым релизом курса: пропустите его', { goal }),
  goalStatusUnknown: (status: string) =>
    refuse('goal_status_unknown', 'Статус пункта — один из open, done, planned, not_needed', {
      status,
      allowed: ['open', 'done', 'planned', 'not_needed'],
    }),
  notNeededRequired: (goal: string) =>
    refuse('not_needed_required', 'Обязательный пункт нельзя отметить not_needed: разберите его или верните open', {
      goal,
      allowed: ['open', 'done', 'planned'],
    }),
  evidenceRequired: () =>
    refuse('evidence_required', 'Закрывающей отметке нужно свидетельство: что ученик сделал или сказал'),
  evidenceTooLong: (length: number) =>
    refuse('evidence_too_long', 'Свидетельство длиннее 500 знаков: сократите до одной-двух фраз', {
      limit: LIMITS.evidence,
      length,
    }),
  resumeFromTooLong: (length: number) =>
    refuse('resume_from_too_long', 'Заметка «с чего продолжить» длиннее 500 знаков: одна фраза, не пересказ', {
      limit: LIMITS.resumeFrom,
      length,
    }),
  quizNotConfigured: () => refuse('quiz_not_configured', 'У урока нет квиза: закройте урок через complete_lesson'),
  quizRequired: () =>
    refuse(
      'quiz_required',
      'У урока обязательная проверка знаний: закрыть его можно только сдачей квиза (request_quiz)',
    ),
  /** `after` — what follows the failed lesson (docs/decisions.md, the failed lesson). */
  attemptsExhausted: (used: number, after: Continuation | null = null) =>
    refuse(
      'quiz_attempts_exhausted',
      `Попытки проверки знаний по уроку кончились: урок больше не зачесть. Скажите ученику; вопросы кажутся неверными — report_issue. ${
        after ? continuationPhrase(after) : 'Дальше — следующий урок курса (start_lesson с course).'
      }`,
      { attempts_used: used },
    ),
  retryTooSoon: (retryAfter: string) =>
    refuse('retry_too_soon', 'Пауза между попытками ещё не прошла: пересдать можно с момента retry_after', {
      retry_after: retryAfter,
    }),
  attemptCancelled: (attempt: string, session: string, reason: string) =>
    refuse(
      'quiz_attempt_cancelled',
      reason === 'lesson_removed'
        ? 'Курс обновился, и урок снят: квиза по нему больше нет — предложите следующий урок'
        : 'Курс обновился, и попытка аннулирована: скажите ученику, что проверка начнётся заново, и запросите квиз через request_quiz',
      { attempt, session, reason },
    ),
  attemptFinished: (attempt: string) =>
    refuse('attempt_finished', 'Попытка уже завершена: новую начинает request_quiz', { attempt }),
  questionMismatch: (question: string) =>
    refuse('question_mismatch', 'Вопрос не из этой попытки или на него уже ответили', { question }),
  answerUnknown: (answer: string, options: string[]) =>
    refuse('answer_unknown', 'Ответ не совпал ни с одним вариантом: передайте id варианта', { answer, options }),
  studentWordsRequired: () =>
    refuse('student_words_required', 'Передайте дословно, что ученик написал в ответ на вопрос (student_words)'),
  invalidPage: (where: string, value: unknown) =>
    refuse('invalid_page', 'start — целое от 0, limit — целое от 1 до 20', { where, value }),
};
