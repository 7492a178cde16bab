import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { EnrollmentDb } from '../db.ts';
import type { ProgramRow } from '../domain/programs.ts';

/**
 * The programs of the course in `course` for one student, as JSON (see {@link ProgramRow}), or
 * null when the course is in no program: the CASE runs the subquery only for courses that are in
 * one (rare), so a list pays one index probe per course for it.
 */
export function programsJson(
  user: string | RawBuilder<unknown>,
  course: RawBuilder<unknown>,
): RawBuilder<ProgramRow[] | null> {
  return sql<ProgramRow[] | null>`case when exists (select 1 from program_courses x where x.course = ${course}) then (
    select json_agg(json_build_object(
      'program', p.key, 'title', p.title, 'ordered', p.ordered,
      'member', exists (select 1 from program_members pm where pm.program = p.key and pm.user_id = ${user}),
      'courses', (
        select json_agg(json_build_object(
          'course', pc2.course,
          'title', coalesce(c2.title, pc2.course),
          'finished', exists (select 1 from enrollments e2
            where e2.user_id = ${user} and e2.course = pc2.course
              and (e2.completed_at is not null or e2.finished_at is not null))
        ) order by pc2.position)
        from program_courses pc2 left join catalog c2 on c2.course = pc2.course
        where pc2.program = p.key)
    ) order by p.key)
    from program_courses pc join programs p on p.key = pc.program
    where pc.course = ${course}) end`;
}

/** A program with its courses and members, as the admin lists it. */
export interface ProgramDefinition {
  key: string;
  title: string;
  ordered: boolean;
  courses: string[];
  members: string[];
}

/** All SQL of programs, their course chains and members. */
export class ProgramRepository {
  constructor(private readonly db: Kysely<EnrollmentDb>) {}

  /** The programs of one course for one student (enroll's program_order check). */
  async programsFor(user: string, course: string): Promise<ProgramRow[]> {
    const { rows } = await sql<{
      programs: ProgramRow[] | null;
    }>`select ${programsJson(user, sql`${course}::text`)} as programs`.execute(this.db);
    return rows[0]?.programs ?? [];
  }

  /** Creates or replaces a program and its ordered course list (members are kept). */
  async saveProgram(p: { key: string; title: string; ordered: boolean; courses: string[] }): Promise<void> {
    // Inside the caller's transaction when it gives one (the admin announces access with it).
    const inTrx = (fn: (trx: Kysely<EnrollmentDb>) => Promise<void>) =>
      this.db.isTransaction ? fn(this.db) : this.db.transaction().execute(fn);
    await inTrx(async (trx) => {
      await trx
        .insertInto('programs')
        .values({ key: p.key, title: p.title, ordered: p.ordered })
        .onConflict((oc) => oc.column('key').doUpdateSet({ title: p.title, ordered: p.ordered }))
        .execute();
      await trx.deleteFrom('program_courses').where('program', '=', p.key).execute();
      if (p.courses.length) {
        await trx
          .insertInto('program_courses')
          .values(p.courses.map((course, i) => ({ program: p.key, position: i + 1, course })))
          .execute();
      }
    });
  }

  /** Adds a member to a program (repeating it changes nothing). */
  async addMember(program: string, user: string): Promise<void> {
    await this.db
      .insertInto('program_members')
      .values({ program, user_id: user })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  /** Removes a member from a program. */
  async removeMember(program: string, user: string): Promise<void> {
    await this.db.deleteFrom('program_members').where('program', '=', program).where('user_id', '=', user).execute();
  }

  /** True when the program exists. */
  async exists(program: string): Promise<boolean> {
    return !!(await this.db.selectFrom('programs').select('key').where('key', '=', program).executeTakeFirst());
  }

  /** Every program with its courses and members. */
  async list(): Promise<ProgramDefinition[]> {
    return this.db
      .selectFrom('programs as p')
      .select([
        'p.key',
        'p.title',
        'p.ordered',
        sql<string[]>`coalesce((select array_agg(pc.course order by pc.position)
          from program_courses pc where pc.program = p.key), '{}')`.as('courses'),
        sql<string[]>`coalesce((select array_agg(pm.user_id order by pm.user_id)
          from program_members pm where pm.program = p.key), '{}')`.as('members'),
      ])
      .orderBy('p.key')
      .execute();
  }
}
