import { PERSONAL } from '../principal.ts';
import type { Refusal } from '../refusal.ts';
import { courseNotInSpace, notEnrolled, organizationSuspended as orgSuspended } from './refusals.ts';
import { type OrgMembership, resolveSpace } from './space.ts';

/** One enrollment of the student in the course (any space). */
export interface CourseEnrollment {
  space: string;
  organization: string | null;
  self_enrolled: boolean;
  mandatory: boolean | null;
  deadline: string | null;
  overdue: boolean;
  enrolled_at: string;
}

/** Where a course tool works: the space and the enrollment that counts there. */
export interface CourseSpace {
  space: string;
  organization: string | null;
  enrollment: CourseEnrollment;
}

type Chosen = { ok: true; value: CourseSpace } | { ok: false; error: Refusal };

/**
 * The space of a course tool (spec, "Пространства"): the explicit `space` argument, else the space
 * of the student's started lesson on the course (`courseSpace`), else the selected space. A named
 * space the student lacks is space_not_available, a suspended one organization_suspended, a named
 * space without the course course_not_in_space. Without a named space the student is never refused
 * for the mere choice: when the course is not in the selected space, the course's own enrollment
 * decides (an organization's assignment before a self-enrollment). The personal space counts the
 * enrollments of every active organization too when it is named, as list_my_courses does.
 */
export function chooseCourseSpace(input: {
  course: string;
  orgs: readonly OrgMembership[];
  selected: string;
  explicit: string | null;
  courseSpace: string | null;
  enrollments: readonly CourseEnrollment[];
}): Chosen {
  const { orgs, enrollments, course } = input;
  const suspended = (name: string) => orgs.find((o) => o.name === name && o.suspended);

  if (input.explicit !== null) {
    const resolved = resolveSpace(orgs, input.selected, input.explicit);
    if (!resolved.ok) return resolved;
    const found = pick(enrollments, resolved.scope.courseSpaces);
    if (found) return chosen(resolved.scope.space, resolved.scope.organization, found);
    if (enrollments.length === 0) return notEnrolled(course);
    // Where naming a space would work: the course's own spaces that are not suspended, and
    // personal when any of them is usable (personal counts every active organization's courses).
    const usable = enrollments.filter(
      (e) => e.space === PERSONAL || orgs.some((o) => o.name === e.space && !o.suspended),
    );
    if (usable.length === 0) {
      const blocked = enrollments.map((e) => suspended(e.space)).find((o) => o);
      return blocked ? orgSuspended(blocked) : notEnrolled(course);
    }
    const available = [...new Set([...usable.map((e) => e.space), PERSONAL])];
    return courseNotInSpace(
      course,
      resolved.scope.space,
      available.filter((s) => s !== resolved.scope.space),
    );
  }

  if (input.courseSpace !== null && input.courseSpace !== PERSONAL) {
    const org = suspended(input.courseSpace);
    if (org) return orgSuspended(org);
  }
  // The started lesson's space, then the selected one, where the course itself is enrolled.
  // A started lesson stays where it is, as a named space would.
  const candidates: Array<[string | null, 'started' | 'selected']> = [
    [input.courseSpace, 'started'],
    [input.selected, 'selected'],
  ];
  for (const [wanted, why] of candidates) {
    if (wanted === null) continue;
    const resolved = resolveSpace(orgs, PERSONAL, wanted);
    if (!resolved.ok) continue;
    const found = pick(enrollments, why === 'started' ? resolved.scope.courseSpaces : [resolved.scope.space]);
    if (found) return chosen(resolved.scope.space, resolved.scope.organization, found);
  }
  // Not enrolled there: the course's own enrollment in a space the student can use.
  const usable = enrollments.filter(
    (e) => e.space === PERSONAL || orgs.some((o) => o.name === e.space && !o.suspended),
  );
  const own = pick(
    usable,
    usable.map((e) => e.space),
  );
  if (own) return chosen(own.space, own.organization, own);
  const blocked = enrollments.map((e) => suspended(e.space)).find((o) => o);
  if (blocked) return orgSuspended(blocked);
  return notEnrolled(course);
}

function chosen(space: string, organization: string | null, enrollment: CourseEnrollment): Chosen {
  return { ok: true, value: { space, organization, enrollment } };
}

/** The enrollment that counts among these spaces: an assignment (mandatory first) before a self-enrollment. */
function pick(enrollments: readonly CourseEnrollment[], spaces: readonly string[]): CourseEnrollment | undefined {
  return enrollments
    .filter((e) => spaces.includes(e.space))
    .sort(
      (a, b) =>
        Number(a.self_enrolled) - Number(b.self_enrolled) ||
        Number(b.mandatory ?? false) - Number(a.mandatory ?? false) ||
        (a.deadline ?? '9999').localeCompare(b.deadline ?? '9999') ||
        a.enrolled_at.localeCompare(b.enrolled_at),
    )[0];
}
