import { refuse } from '../refusal.ts';
import type { OrgMembership } from './space.ts';

// The refusals of a course tool's access check (spec 000, «Когда сервер откажет»): enrollment's
// course_access gives them, and lessons and homework decide them alike from their projection.

/** not_enrolled: the student has no enrollment in the course that a course tool could use. */
export function notEnrolled(course: string) {
  return refuse(
    'not_enrolled',
    'Ученик не записан на этот курс: запишите его через enroll или выберите курс из list_my_courses',
    { course },
  );
}

/** course_not_in_space: the named space does not have the course; the student is enrolled elsewhere. */
export function courseNotInSpace(course: string, space: string, available: string[]) {
  return refuse('course_not_in_space', `Курса нет в пространстве «${space}»: ученик записан на него в другом`, {
    course,
    space,
    available,
  });
}

/** organization_suspended: the course's enrollment is in a suspended organization. */
export function organizationSuspended(org: OrgMembership) {
  return refuse(
    'organization_suspended',
    `Организация «${org.title}» приостановлена: её курсы сейчас недоступны, зачисления сохраняются`,
    { space: org.name, organization: org.name },
  );
}
