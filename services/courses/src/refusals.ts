import { refuse } from '@studium/contracts';

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

/** note_not_found: no note with this id. */
export function noteNotFound(note: string) {
  return refuse('note_not_found', `Заметки ${note} нет: возьмите идентификатор из course_notes`, { note });
}
