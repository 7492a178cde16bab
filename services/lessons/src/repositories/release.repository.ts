import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { LessonsDb } from '../db.ts';

type Q = Kysely<LessonsDb>;

/** The active release of each course, as the release_published consumer last set it. */
export class ReleaseRepository {
  constructor(private readonly db: Q) {}

  find(course: string, q: Q = this.db) {
    return q
      .selectFrom('active_releases')
      .select(['course', 'release', 'version'])
      .where('course', '=', course)
      .executeTakeFirst();
  }

  /** Records the first release lessons learns of for a course (the consumer owns every later change). */
  async seed(course: string, release: string, version: number, q: Q = this.db) {
    await q
      .insertInto('active_releases')
      .values({ course, release, version })
      .onConflict((oc) => oc.column('course').doNothing())
      .execute();
  }

  /** Sets a newer active release; an older version (out-of-order delivery) changes nothing. Returns whether it changed. */
  async advance(q: Q, course: string, release: string, version: number): Promise<boolean> {
    const res = await q
      .insertInto('active_releases')
      .values({ course, release, version })
      .onConflict((oc) =>
        oc
          .column('course')
          .doUpdateSet({ release, version, updated_at: sql<string>`now()` })
          .where('active_releases.version', '<', version),
      )
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
