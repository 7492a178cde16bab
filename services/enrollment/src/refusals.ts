import type { ProgramLock } from '@studium/contracts';
import { refuse } from '@studium/contracts';

// Every refusal of the enrollment service: one function per spec code, with its Russian message.
// The space refusals every service shares (space_not_available of a named space,
// organization_suspended of a space) are in the contracts (`spaces.ts`).

/** A course id as a refusal message quotes it: a short prefix, never the whole input. */
export function shortId(id: string): string {
  return id.length > 64 ? `${id.slice(0, 64)}…` : id;
}

// --- identity (the edge's sign-in and token checks) ---

/** login_failed: unknown login, no password set or a wrong password — one refusal for all. */
export function loginFailed() {
  return refuse('login_failed', 'неверный логин или пароль');
}

/** token_invalid: an unknown, revoked or expired token, or a user whose access was revoked since. */
export function tokenInvalid() {
  return refuse('token_invalid', 'сессия истекла, требуется повторная авторизация');
}

/** space_not_available (set_space): no such space for the user, or its organization is suspended. */
export function spaceNotAvailable(space: string, available: string[], suspendedTitle: string | null) {
  return refuse(
    'space_not_available',
    suspendedTitle !== null
      ? `Организация «${suspendedTitle}» приостановлена: учиться в её пространстве сейчас нельзя`
      : `Пространства «${space}» у ученика нет: выберите организацию из whoami или personal`,
    { space, available },
  );
}

// --- catalog and enrollment ---

/** course_not_published: the course is not in the student's catalog (a draft or unknown). */
export function courseNotPublished(course: string) {
  return refuse('course_not_published', `Курса «${shortId(course)}» нет в каталоге ученика`, { course });
}

/** already_enrolled: the student is enrolled in the course in this space already. */
export function alreadyEnrolled(course: string, title: string, space: string) {
  return refuse('already_enrolled', `Ученик уже записан на курс «${title}»: он есть в list_my_courses`, {
    course,
    space,
  });
}

/** course_not_allowed: the course is not open to the space's organization (or to any of the student's). */
export function courseNotAllowed(course: string, space: string, orgTitle: string | null) {
  return refuse(
    'course_not_allowed',
    orgTitle !== null
      ? `Курс «${shortId(course)}» не открыт организации «${orgTitle}»`
      : `Курс «${shortId(course)}» не открыт ни одной организации ученика`,
    { course, space },
  );
}

/** course_upcoming: an announcement is not enrolled in; the student can subscribe instead. */
export function courseUpcoming(course: string, title: string) {
  return refuse(
    'course_upcoming',
    `Курс «${title}» анонсирован и ещё готовится: вместо записи предложите notify_when_released`,
    { course },
  );
}

/** program_order: an ordered program puts another course first, and it is not completed. */
export function programOrder(title: string, lock: ProgramLock) {
  return refuse(
    'program_order',
    `Курс «${title}» в программе «${lock.program_title}» идёт после курса «${lock.previous.title}»: сначала пройдите его`,
    { ...lock },
  );
}

/**
 * course_not_upcoming (notify_when_released): the course is open already (`title` given: it is
 * visible to the student), or no such announcement is in the student's catalog.
 */
export function courseNotUpcoming(course: string, openTitle: string | null) {
  return refuse(
    'course_not_upcoming',
    openTitle !== null
      ? `Курс «${openTitle}» уже открыт: записывайте через enroll`
      : `Анонса «${shortId(course)}» нет в каталоге ученика: его сняли, его нет или он не открыт организациям ученика`,
    { course },
  );
}

// --- the space of a course tool ---

// not_enrolled, course_not_in_space and organization_suspended of a course tool are in the
// contracts (`access/refusals.ts`): lessons and homework decide access from their projection too.
export { courseNotInSpace, notEnrolled, organizationSuspended } from '@studium/contracts';
