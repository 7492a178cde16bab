import { REPORT_KINDS, REPORT_RESOLVE_STATUSES, refuse } from '@studium/contracts';
import { REPORT_FILTERS } from './domain/report-rules.ts';

/** not_your_session: the session is another student's (or unknown). */
export function notYourSession(session: string) {
  return refuse(
    'not_your_session',
    'Это занятие не ваше или его нет: возьмите session из ответа start_lesson этого ученика',
    { session },
  );
}

/** unknown_report_kind: the kind is not one of the spec's. */
export function unknownReportKind(kind: string) {
  return refuse('unknown_report_kind', `Вида репорта ${kind} нет: возьмите один из allowed`, {
    kind,
    allowed: [...REPORT_KINDS],
  });
}

/** report_text_required: the report says nothing. */
export function reportTextRequired() {
  return refuse('report_text_required', 'Опишите, что не так: текст репорта пуст', { where: 'text' });
}

/** question_mismatch: the question is not one of this lesson's quiz. */
export function questionMismatch(question: string, lessonKey: string) {
  return refuse(
    'question_mismatch',
    `Вопроса ${question} нет в квизе этого урока: возьмите id вопроса из request_quiz`,
    { question, lesson_key: lessonKey },
  );
}

/** unknown_report_status: a status course_reports or resolve_report does not know. */
export function unknownReportStatus(status: string, forResolve: boolean) {
  const allowed = forResolve ? [...REPORT_RESOLVE_STATUSES] : [...REPORT_FILTERS];
  return refuse('unknown_report_status', `Статуса ${status} нет: возьмите один из allowed`, { status, allowed });
}

/** report_not_found: no report with this number. */
export function reportNotFound(report: number | string) {
  return refuse('report_not_found', `Репорта ${report} нет: возьмите номер из course_reports`, { report });
}
