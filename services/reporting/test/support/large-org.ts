import { type Kysely, sql } from 'kysely';
import type { ReportingDb } from '../../src/db.ts';
import { currentGeneration } from '../../src/generation.ts';

/** The shape of the seeded organization: person i × course j. */
export const LARGE = { org: 'big', manager: 'head@big', people: 5000, courses: 10, lessons: 5 } as const;

/** Status of person i in course j in the seed: (i + j) mod 3 → not started, in progress (2 of 5), completed. */
export function seededStatus(i: number, j: number): 'not_started' | 'in_progress' | 'completed' {
  return (['not_started', 'in_progress', 'completed'] as const)[(i + j) % 3] ?? 'not_started';
}

/** Deadline of course j: even courses are overdue unless completed, odd ones are in the future. */
export function seededDeadline(j: number): string {
  return j % 2 === 0 ? '2020-01-01T00:00:00.000Z' : '2099-01-01T00:00:00.000Z';
}

/**
 * Writes a 5,000 × 10 organization straight into the current read-model generation with
 * generate_series (what the consumer would build from ~60,000 events, in seconds). The projection
 * from events is covered by the other tests; this seed is for size, order, paging and speed.
 */
export async function seedLargeOrganization(db: Kysely<ReportingDb>): Promise<void> {
  const g = await currentGeneration(db);
  const t = (name: string) => sql.table(`${g}.${name}`);
  const { org, manager, people, courses, lessons } = LARGE;
  const user = sql`'u' || lpad(i::text, 4, '0') || '@big'`;
  await sql`insert into ${t('organizations')} (name, title, suspended, at) values (${org}, 'Большая организация', false, now())
    on conflict do nothing`.execute(db);
  await sql`insert into ${t('users')} (id, full_name, at) values (${manager}, 'Руководитель Большой', now())
    on conflict do nothing`.execute(db);
  await sql`insert into ${t('memberships')} (org, user_id, role, at) values (${org}, ${manager}, 'manager', now())
    on conflict do nothing`.execute(db);
  await sql`insert into ${t('users')} (id, full_name, at)
    select ${user}, 'Сотрудник ' || lpad(i::text, 4, '0'), now() from generate_series(0, ${people - 1}) i`.execute(db);
  await sql`insert into ${t('memberships')} (org, user_id, role, at)
    select ${org}, ${user}, 'member', now() from generate_series(0, ${people - 1}) i`.execute(db);
  await sql`insert into ${t('courses')} (course, revision, title, lessons, lessons_total)
    select 'big-c' || j, 1, 'Курс ' || j, '[]'::jsonb, ${lessons} from generate_series(0, ${courses - 1}) j`.execute(
    db,
  );
  await sql`insert into ${t('enrollments')} (user_id, course, space, organization, self_enrolled, mandatory, deadline, enrolled_at, assignment_at)
    select ${user}, 'big-c' || j, ${org}, ${org}, false, j < 3,
      case when j % 2 = 0 then timestamptz '2020-01-01T00:00:00Z' else timestamptz '2099-01-01T00:00:00Z' end, now(), now()
    from generate_series(0, ${people - 1}) i, generate_series(0, ${courses - 1}) j`.execute(db);
  await sql`insert into ${t('progress')} (user_id, course, lessons_passed, lessons_total, completed, progress_at, last_activity)
    select ${user}, 'big-c' || j, case when (i + j) % 3 = 1 then 2 else ${lessons} end, ${lessons}, (i + j) % 3 = 2,
      timestamptz '2026-01-01T00:00:00Z' + (i || ' minutes')::interval, timestamptz '2026-01-01T00:00:00Z' + (i || ' minutes')::interval
    from generate_series(0, ${people - 1}) i, generate_series(0, ${courses - 1}) j where (i + j) % 3 <> 0`.execute(db);
  await sql`insert into ${t('documents')} (user_id, course, space, artifact, organization, title, blocks_total, blocks_filled, at)
    select ${user}, 'big-c' || j, ${org}, 'plan', ${org}, 'План', 4, case when (i + j) % 3 = 2 then 4 else 2 end, now()
    from generate_series(0, ${people - 1}) i, generate_series(0, ${courses - 1}) j where (i + j) % 3 <> 0`.execute(db);
  await sql`analyze`.execute(db);
}
