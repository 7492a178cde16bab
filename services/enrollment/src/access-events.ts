import { emitEventsFrom } from '@studium/platform';
import { type Kysely, sql } from 'kysely';
import type { EnrollmentDb } from './db.ts';
import { effectiveSpace } from './repositories/identity.repository.ts';
import { programsJson } from './repositories/program.repository.ts';

/**
 * The access document of user `u` (contracts `AccessChanged`), built in SQL from the same state
 * course_access reads (IdentityRepository.findUserWithOrgs, EnrollmentRepository.accessRows,
 * programsJson), so a projection decides as course_access does.
 */
const accessDoc = sql`jsonb_build_object(
  'user', u.id,
  'version', u.access_version,
  'space', ${effectiveSpace},
  'organizations', coalesce((
    select jsonb_agg(jsonb_build_object('name', o.name, 'title', o.title, 'role', m.role, 'suspended', o.suspended)
                     order by o.title)
    from memberships m join organizations o on o.name = m.org where m.user_id = u.id), '[]'::jsonb),
  'enrollments', coalesce((
    select jsonb_agg(jsonb_build_object('course', e.course, 'space', e.space, 'organization', e.organization,
        'self_enrolled', e.self_enrolled, 'mandatory', e.mandatory, 'deadline', e.deadline,
        'enrolled_at', e.enrolled_at, 'completed', e.completed_at is not null) order by e.course, e.space)
    from enrollments e where e.user_id = u.id
      -- A tester's enrollment counts while the grant stands or once the course is open (accessRows).
      and (not e.tester or exists (select 1 from catalog c where c.course = e.course
        and (c.status = 'published' or u.id = any(c.testers))))), '[]'::jsonb),
  'programs', coalesce((
    select jsonb_object_agg(x.course, x.programs)
    from (select distinct e.course from enrollments e where e.user_id = u.id
            and exists (select 1 from program_courses pc where pc.course = e.course)) x0
      cross join lateral (select x0.course, ${programsJson(sql`u.id`, sql`x0.course`)}::jsonb as programs) x), '{}'::jsonb)
)`;

/**
 * Sends `enrollment.access_changed` for each of these users in the caller's transaction, after
 * its writes. Two statements, in this order, keep the highest version the latest state: the
 * first bumps each user's version under the row lock (held to COMMIT, so a concurrent writer of
 * the same user waits and then bumps higher), the second builds the documents in a new snapshot
 * (READ COMMITTED), which sees whatever that earlier writer committed. Unknown users are skipped.
 */
export async function announceAccess(trx: Kysely<EnrollmentDb>, users: readonly string[]): Promise<number> {
  const ids = [...new Set(users)].sort();
  if (ids.length === 0) return 0;
  // Sorted, so two fan-outs over the same users lock them in the same order.
  await sql`update users set access_version = access_version + 1
    where id in (select id from users where id = any(${ids}::text[]) order by id for update)`.execute(trx);
  return emitEventsFrom(
    trx,
    'enrollment.access_changed',
    sql`select ${accessDoc} as data, u.id as ord from users u where u.id = any(${ids}::text[])`,
  );
}

/** The users whose access documents show this course (enrolled in it, or in a course of a program holding it). */
export async function usersOfCourse(trx: Kysely<EnrollmentDb>, course: string): Promise<string[]> {
  const { rows } = await sql<{ user_id: string }>`select distinct e.user_id from enrollments e
    where e.course = ${course} or e.course in (
      select pc2.course from program_courses pc join program_courses pc2 on pc2.program = pc.program
      where pc.course = ${course})`.execute(trx);
  return rows.map((r) => r.user_id);
}

/** The users whose access documents show this program (members, or enrolled in one of its courses). */
export async function usersOfProgram(
  trx: Kysely<EnrollmentDb>,
  program: string,
  courses: string[] = [],
): Promise<string[]> {
  const { rows } = await sql<{ user_id: string }>`select user_id from program_members where program = ${program}
    union select e.user_id from enrollments e where e.course in (
      select course from program_courses where program = ${program} union select unnest(${courses}::text[]))`.execute(
    trx,
  );
  return rows.map((r) => r.user_id);
}

/**
 * Once per database: the access documents of every user, so the events stream holds the whole
 * state (it keeps every event: no limits, see libs/platform/src/events.ts) and a new projection
 * fills itself by replaying it from the start. The marker row is inserted in the same
 * transaction: a concurrent replica waits on it and then finds it.
 */
export async function announceAccessOnce(db: Kysely<EnrollmentDb>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const first = await sql`insert into access_announced (id) values (1) on conflict do nothing returning id`.execute(
      trx,
    );
    if (first.rows.length === 0) return 0;
    const users = await trx.selectFrom('users').select('id').execute();
    let n = 0;
    // In slices: one statement per thousand users.
    for (let i = 0; i < users.length; i += 1000) {
      n += await announceAccess(
        trx,
        users.slice(i, i + 1000).map((u) => u.id),
      );
    }
    return n;
  });
}
