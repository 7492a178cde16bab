import { type Kysely, sql, type Transaction } from 'kysely';
import type { EnrollmentDb } from '../db.ts';

/** All SQL of release subscriptions. */
export class SubscriptionRepository {
  constructor(private readonly db: Kysely<EnrollmentDb>) {}

  /** Subscribes (or unsubscribes) a student; repeating it changes nothing. */
  async setNotify(user: string, course: string, notify: boolean): Promise<void> {
    if (!notify) {
      await this.db
        .updateTable('subscriptions')
        .set({ notify: false, updated_at: sql`now()` })
        .where('user_id', '=', user)
        .where('course', '=', course)
        .where('notify', '=', true)
        .execute();
      return;
    }
    await this.db
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
