import { type Enrolled, enroll, ok, refuse } from '@studium/contracts';
import { emitEvent, endpoint, Failure } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { EnrollmentDb } from '../db.ts';
import { programsOf } from '../domain/programs.ts';
import type { Identities } from '../identities.ts';
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
    if (!card || card.status === 'draft') {
      return refuse('course_not_published', `Курса «${shortId(course)}» нет в каталоге ученика`, { course });
    }
    if (await deps.enrollments.hasCourse(principal.user, course, scope.courseSpaces)) {
      return alreadyEnrolled(course, card.title, scope.space);
    }
    if (scope.catalogOrgs !== null && !(await deps.access.isAllowed(course, scope.catalogOrgs))) {
      const org = me.organizations.find((o) => o.name === scope.organization);
      return refuse(
        'course_not_allowed',
        org
          ? `Курс «${shortId(course)}» не открыт организации «${org.title}»`
          : `Курс «${shortId(course)}» не открыт ни одной организации ученика`,
        { course, space: scope.space },
      );
    }
    if (card.status === 'upcoming') {
      return refuse(
        'course_upcoming',
        `Курс «${card.title}» анонсирован и ещё готовится: вместо записи предложите notify_when_released`,
        { course },
      );
    }
    const { lock } = programsOf(course, await deps.programs.programsFor(principal.user, course));
    if (lock) {
      return refuse(
        'program_order',
        `Курс «${card.title}» в программе «${lock.program_title}» идёт после курса «${lock.previous.title}»: сначала пройдите его`,
        { ...lock },
      );
    }

    const inserted = await deps.db.transaction().execute(async (trx) => {
      const at = await deps.enrollments.insert(trx, {
        user_id: principal.user,
        course,
        space: scope.space,
        self_enrolled: true,
        mandatory: null,
        deadline: null,
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

function alreadyEnrolled(course: string, title: string, space: string) {
  return refuse('already_enrolled', `Ученик уже записан на курс «${title}»: он есть в list_my_courses`, {
    course,
    space,
  });
}

/** A course id as a refusal message quotes it: a short prefix, never the whole input. */
export function shortId(id: string): string {
  return id.length > 64 ? `${id.slice(0, 64)}…` : id;
}
