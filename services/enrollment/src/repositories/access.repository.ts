import type { Kysely } from 'kysely';
import type { EnrollmentDb } from '../db.ts';

/** All SQL of organizations' course access (which courses each organization lets its members take). */
export class AccessRepository {
  constructor(private readonly db: Kysely<EnrollmentDb>) {}

  /** Opens a course to an organization (repeating it changes nothing). */
  async allow(org: string, course: string): Promise<void> {
    await this.db
      .insertInto('org_courses')
      .values({ org, course })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  /** Closes a course to an organization. */
  async disallow(org: string, course: string): Promise<void> {
    await this.db.deleteFrom('org_courses').where('org', '=', org).where('course', '=', course).execute();
  }

  /** True when one of the organizations opened the course. */
  async isAllowed(course: string, orgs: string[]): Promise<boolean> {
    if (!orgs.length) return false;
    const row = await this.db
      .selectFrom('org_courses')
      .select('org')
      .where('course', '=', course)
      .where('org', 'in', orgs)
      .executeTakeFirst();
    return !!row;
  }

  /** The courses an organization opened. */
  async coursesOf(org: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('org_courses')
      .select('course')
      .where('org', '=', org)
      .orderBy('course')
      .execute();
    return rows.map((r) => r.course);
  }
}
