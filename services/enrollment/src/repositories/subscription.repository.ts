import { type Kysely, sql, type Transaction } from 'kysely';
import type { EnrollmentDb } from '../db.ts';

/** All SQL of release subscriptions. */
export class SubscriptionRepository {
  constructor(private readonly db: Kysely<EnrollmentDb>) {}

  /** Subscribes (or unsubscribes) a student; repeating it changes nothing. */
  /**
   * Serializes subscribing and notifying for one course (transaction-scoped advisory lock), so a
   * subscription is either seen by the notification or refused because it came after it.
   */
  async lockCourse(trx: Transaction<EnrollmentDb>, course: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext('enrollment.subscriptions'), hashtext(${course}))`.execute(trx);
  }

  /** Records that the course's release e-mails went out. */
  async markReleased(trx: Transaction<EnrollmentDb>, course: string): Promise<void> {
    await trx
      .insertInto('released_courses')
      .values({ course })
      .onConflict((oc) => oc.column('course').doNothing())
      .execute();
  }

  async isReleased(trx: Transaction<EnrollmentDb>, course: string): Promise<boolean> {
    return !!(await trx
      .selectFrom('released_courses')
      .select('course')
      .where('course', '=', course)
      .executeTakeFirst());
  }

  async setNotify(
    user: string,
    course: string,
    notify: boolean,
    db: Kysely<EnrollmentDb> | Transaction<EnrollmentDb> = this.db,
  ): Promise<void> {
    if (!notify) {
      await db
        .updateTable('subscriptions')
        .set({ notify: false, updated_at: sql`now()` })
        .where('user_id', '=', user)
        .where('course', '=', course)
        .where('notify', '=', true)
        .execute();
      return;
    }
    await db
      .insertInto('subscriptions')
      .values({ user_id: user, course, notify: true, notified_at: null })
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'course'])
          .doUpdateSet({ notify: true, updated_at: sql`now()` })
          .where('subscriptions.notify', '=', false),
      )
      .execute();
  }

  /** Marks every pending subscription of the course notified; returns the subscribers with their names. */
  async markNotified(
    trx: Transaction<EnrollmentDb>,
    course: string,
  ): Promise<Array<{ user: string; full_name: string; at: string }>> {
    return trx
      .updateTable('subscriptions as s')
      .from('users as u')
      .set({ notified_at: sql`now()`, updated_at: sql`now()` })
      .whereRef('u.id', '=', 's.user_id')
      .where('s.course', '=', course)
      .where('s.notify', '=', true)
      .where('s.notified_at', 'is', null)
      .returning(['s.user_id as user', 'u.full_name', sql<string>`s.notified_at`.as('at')])
      .execute();
  }
}
