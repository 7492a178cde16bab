import { type Enrolled, enroll, ok } from '@studium/contracts';
import { emitEvent, endpoint, Failure } from '@studium/platform';
import type { Kysely } from 'kysely';
import { announceAccess } from '../access-events.ts';
import type { EnrollmentDb } from '../db.ts';
import { programsOf } from '../domain/programs.ts';
import type { Identities } from '../identities.ts';
import { alreadyEnrolled, courseNotAllowed, courseNotPublished, courseUpcoming, programOrder } from '../refusals.ts';
import type { AccessRepository } from '../repositories/access.repository.ts';
import type { CatalogRepository } from '../repositories/catalog.repository.ts';
import type { EnrollmentRepository } from '../repositories/enrollment.repository.ts';
import type { ProgramRepository } from '../repositories/program.repository.ts';

/** What enroll reads and writes. */
export interface EnrollDeps {
  db: Kysely<EnrollmentDb>;
  identities: Identities;
  catalog: CatalogRepository;
  enrollments: EnrollmentRepository;
  access: AccessRepository;
  programs: ProgramRepository;
}

/**
 * enroll: a self-enrollment in the space. Every refusal is decided before the one write, which
 * inserts the enrollment and its `enrolled` event in one transaction.
 */
export function enrollHandler(deps: EnrollDeps) {
  return endpoint(enroll, async ({ course, space }, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const { me, resolved } = await deps.identities.spaceOf(principal, space, { fresh: true });
    if (!resolved.ok) return resolved;
    const { scope } = resolved;

    // A refusal names a course by its title only when the student can see the course: a draft or a
    // course not open to their organizations is named by the id they passed.
    const card = await deps.catalog.findCard(course);
    // A tester (granted in the author cabinet) enrolls in a course that is not open yet.
    const tester = card !== undefined && card.status !== 'published' && card.testers.includes(principal.user);
    if (!card || (card.status === 'draft' && !tester)) return courseNotPublished(course);
    if (await deps.enrollments.hasCourse(principal.user, course, scope.courseSpaces)) {
      return alreadyEnrolled(course, card.title, scope.space);
    }
    if (scope.catalogOrgs !== null && !(await deps.access.isAllowed(course, scope.catalogOrgs))) {
      const org = me.organizations.find((o) => o.name === scope.organization);
      return courseNotAllowed(course, scope.space, org ? org.title : null);
    }
    if (card.status === 'upcoming' && !tester) return courseUpcoming(course, card.title);
    const { lock } = programsOf(course, await deps.programs.programsFor(principal.user, course));
    if (lock) return programOrder(card.title, lock);

    const inserted = await deps.db.transaction().execute(async (trx) => {
      const at = await deps.enrollments.insert(trx, {
        user_id: principal.user,
        course,
        space: scope.space,
        self_enrolled: true,
        mandatory: null,
        deadline: null,
        tester,
      });
      if (!at) return false;
      const event: Enrolled = {
        user: principal.user,
        course,
        space: scope.space,
        organization: scope.organization,
        self_enrolled: true,
        at,
      };
      await emitEvent(trx, 'enrollment.enrolled', event);
      await announceAccess(trx, [principal.user]);
      return true;
    });
    if (!inserted) return alreadyEnrolled(course, card.title, scope.space);
    const first = card.first_lesson;
    return ok({
      course,
      title: card.title,
      space: scope.space,
      first_lesson: first ? { id: first.id, title: first.title } : null,
    });
  });
}
