import { NOTE_STATUSES, REPORT_KINDS, REPORT_RESOLVE_STATUSES, refuse } from '@studium/contracts';
import type { NoteStatus, ReportStatus } from './db.ts';
import { REPORT_FILTERS } from './domain/report-rules.ts';

// Every refusal of the courses service: one function per spec code, with its Russian message.

// --- courses and releases ---

/** course_not_found: no course with this id. */
export function courseNotFound(course: string) {
  return refuse('course_not_found', `Курса ${course} нет: возьмите идентификатор из list_courses`, { course });
}

/** course_not_released: the course has no active release yet. */
export function courseNotReleased(course: string) {
  return refuse(
    'course_not_released',
    'У курса ещё нет релиза: сначала опубликуйте релиз конвейером (studium release publish)',
    { course },
  );
}

/** course_from_release: the card or goals of a released course change only with a new release. */
export function courseFromRelease(course: string) {
  return refuse(
    'course_from_release',
    'Курс собран из релиза: поправьте карту курса и выпустите новый релиз — карточку и цели пишет релиз',
    { course },
  );
}

/** course_has_content: a course without release already has lessons. */
export function courseHasContent(course: string, lessons: number) {
  return refuse(
    'course_has_content',
    'У курса уже есть уроки: программу и карточку курсу даёт релиз — выпустите его конвейером',
    { course, lessons },
  );
}

/** course_already_published: an open course does not become an announcement. */
export function courseAlreadyPublished(course: string) {
  return refuse(
    'course_already_published',
    'Курс уже открыт ученикам и анонсом не станет: снять его можно unpublish_course',
    { course },
  );
}

/** course_objectives_missing: an announcement of a course without release needs goals. */
export function courseObjectivesMissing(course: string) {
  return refuse(
    'course_objectives_missing',
    'У курса без релиза нет целей: передайте objectives — цели списком строк',
    {
      course,
      where: 'objectives',
    },
  );
}

/** lesson_not_in_release: the active release has no lesson with this key. */
export function lessonNotInRelease(course: string, lessonKey: string, release: string) {
  return refuse(
    'lesson_not_in_release',
    `Урока ${lessonKey} нет в действующем релизе курса: возьмите ключ из course_release без lesson`,
    { course, lesson_key: lessonKey, release },
  );
}

/** release_not_found: the course has no release with this id. */
export function releaseNotFound(course: string, release: string) {
  return refuse('release_not_found', `У курса ${course} нет релиза ${release}`, { course, release });
}

/** release_invalid: a release that fails the contract or the release checks. */
export function releaseInvalid(problems: string[]) {
  return refuse('release_invalid', 'Релиз не прошёл проверку: поправьте карту курса и соберите релиз заново', {
    problems,
  });
}

/**
 * course_key_taken: the release's course key belongs to another course — the attach_to course
 * already has another key (`current_key`), or another course holds this key (`holder`).
 */
export function courseKeyTaken(course: string, courseKey: string, taken: { current_key: string } | { holder: string }) {
  return refuse(
    'course_key_taken',
    'current_key' in taken
      ? `У курса ${course} уже другой ключ (${taken.current_key}): релиз с ключом ${courseKey} к нему не привязать`
      : `Ключ курса ${courseKey} уже у другого курса (${taken.holder}): релиз нельзя привязать к ${course}`,
    { course, course_key: courseKey, ...taken },
  );
}

// --- notes ---

/** note_not_found: no note with this id. */
export function noteNotFound(note: string) {
  return refuse('note_not_found', `Заметки ${note} нет: возьмите идентификатор из course_notes`, { note });
}

/** invalid_note: a status filter course_notes does not know, or an empty note or reply. */
export function invalidNote(problem: { status: string } | 'empty_note' | 'empty_reply') {
  if (typeof problem === 'object') {
    return refuse('invalid_note', `Статуса заметки ${problem.status} нет: open, done, accepted или null — все`, {
      where: 'status',
      status: problem.status,
      allowed: [...NOTE_STATUSES, null],
    });
  }
  return refuse(
    'invalid_note',
    problem === 'empty_note'
      ? 'Пустой текст заметки: напишите вопрос куратору'
      : 'Пустой ответ: напишите текст для нити заметки',
    { where: 'text' },
  );
}

/** invalid_target: a note address not in the table's form. */
export function invalidTarget(target: string) {
  return refuse(
    'invalid_target',
    'Адрес места не по форме: course, chapter.<ключ>, lesson.<ключ>, objective.<ключ>, goal.<урок>/<пункт>, question.<ключ>, section.<ключ>, agent.frame, agent.lesson.<ключ>, agent.item.<урок>/<пункт> или map.<узел>',
    { where: 'target', target },
  );
}

/** note_target_unknown: the active release has no such place. */
export function noteTargetUnknown(target: string, release: string) {
  return refuse(
    'note_target_unknown',
    `Места ${target} нет в действующем релизе курса: возьмите ключ из course_release`,
    {
      target,
      release,
    },
  );
}

/** invalid_transition: resolve_note on a note that is not open, or without a comment. */
export function invalidTransition(note: string, problem: { status: Exclude<NoteStatus, 'open'> } | 'empty_comment') {
  if (problem === 'empty_comment') {
    return refuse('invalid_transition', 'Пустой комментарий: напишите, что и где изменено и в какой версии', {
      note,
      where: 'comment',
    });
  }
  return refuse(
    'invalid_transition',
    problem.status === 'done'
      ? 'Заметка уже отмечена сделанной и ждёт проверки куратора'
      : 'Заметка уже принята куратором',
    { note, status: problem.status, allowed: ['open'] },
  );
}

// --- reports ---

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

/** invalid_report_transition: the spec's transitions do not lead from the report's status to this one. */
export function invalidReportTransition(
  report: number,
  current: ReportStatus,
  requested: string,
  allowed: readonly string[],
  closed: boolean,
) {
  return refuse(
    'invalid_report_transition',
    closed
      ? `Репорт уже закрыт (${current}): его можно только вернуть в in_progress`
      : `Репорт уже в статусе ${current}: выберите другой из allowed`,
    { report, status: current, requested, allowed },
  );
}

/** report_resolution_required: fixed and rejected need an answer to the student. */
export function reportResolutionRequired(report: number, status: string) {
  return refuse(
    'report_resolution_required',
    'Напишите ученику ответ: что поменялось в курсе или почему курс остаётся прежним',
    { report, status, where: 'resolution' },
  );
}

/** duplicate_of_required: a duplicate names its original. */
export function duplicateOfRequired(report: number) {
  return refuse('duplicate_of_required', 'Укажите duplicate_of — номер репорта, дублем которого признан этот', {
    report,
    where: 'duplicate_of',
  });
}

/** invalid_duplicate_of: the original does not exist, is of another course, or is the report itself (or its duplicate). */
export function invalidDuplicateOf(
  report: number,
  duplicateOf: number | string,
  reason: 'not_found' | 'other_course' | 'self',
) {
  return refuse(
    'invalid_duplicate_of',
    reason === 'not_found'
      ? `Репорта ${duplicateOf} нет: возьмите номер из course_reports`
      : reason === 'other_course'
        ? `Репорт ${duplicateOf} о другом курсе: дубль ищите среди репортов этого курса`
        : 'Репорт не может быть дублем самого себя (и дублем своего дубля)',
    { report, duplicate_of: duplicateOf, reason },
  );
}

// --- the author cabinet ---

/** invalid_transition of the cabinet: a note already accepted, or a return or reply without text. */
export function reviewRefused(note: string, problem: 'accepted' | 'empty_text') {
  return problem === 'accepted'
    ? refuse('invalid_transition', 'Заметка уже принята: её не вернуть и не принять ещё раз', {
        note,
        status: 'accepted',
      })
    : refuse('invalid_transition', 'Пустой ответ: напишите агенту, что не так или что сделать', {
        note,
        where: 'text',
      });
}

/** user_not_found (grant_tester): the login is no platform user, so a grant would never be used. */
export function userNotFound(user: string) {
  return refuse(
    'user_not_found',
    `Пользователя с логином ${user} на платформе нет: доступ тестера выдают только зарегистрированным пользователям — проверьте логин`,
    { user },
  );
}

/** too_many_testers: the course already has the most testers one course may have. */
export function tooManyTesters(course: string, max: number) {
  return refuse('too_many_testers', `У курса уже ${max} тестеров: снимите доступ тем, кому он больше не нужен`, {
    course,
    max,
  });
}
