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

  /**
   * Records the first release lessons learns of for a course, with the course's card revision
   * when it was read (the consumer owns every later change).
   */
  async seed(course: string, release: string, version: number, activation: number, q: Q = this.db) {
    await q
      .insertInto('active_releases')
      .values({ course, release, version, activation: String(activation) })
      .onConflict((oc) => oc.column('course').doNothing())
      .execute();
  }

  /**
   * Sets the release of a later activation; an earlier one (out-of-order delivery, redelivery)
   * changes nothing. The order is the activation's, so a re-activated older version wins over the
   * newer one it replaces; an event without it (published before activations were carried) falls
   * back to the version. Returns whether it changed.
   */
  async advance(q: Q, course: string, release: string, version: number, activation?: number): Promise<boolean> {
    const res = await q
      .insertInto('active_releases')
      .values({ course, release, version, activation: String(activation ?? 0) })
      .onConflict((oc) =>
        oc
          .column('course')
          .doUpdateSet({ release, version, activation: String(activation ?? 0), updated_at: sql<string>`now()` })
          .where((eb) =>
            activation === undefined
              ? eb('active_releases.version', '<', version)
              : eb('active_releases.activation', '<', String(activation)),
          ),
      )
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
