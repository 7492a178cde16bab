import type { Kysely, Selectable } from 'kysely';
import type { CoursesDb } from '../db.ts';

/** A lesson session as courses knows it from lessons' events. */
export type SessionRow = Selectable<CoursesDb['lesson_sessions']>;

/** All SQL of the lesson-session read model. */
export class SessionRepository {
  constructor(private readonly db: Kysely<CoursesDb>) {}

  /** Records a started or continued session; an older event never overwrites a newer one. */
  async upsert(row: SessionRow): Promise<void> {
    await this.db
      .insertInto('lesson_sessions')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('session')
          .doUpdateSet((eb) => ({
            release: eb.ref('excluded.release'),
            space: eb.ref('excluded.space'),
            updated_at: eb.ref('excluded.updated_at'),
          }))
          .where('lesson_sessions.updated_at', '<=', (eb) => eb.ref('excluded.updated_at')),
      )
      .execute();
  }

  async find(session: string): Promise<SessionRow | undefined> {
    return this.db
      .selectFrom('lesson_sessions')
      .select(['session', 'user_id', 'course', 'lesson', 'lesson_key', 'release', 'space', 'updated_at'])
      .where('session', '=', session)
      .executeTakeFirst();
  }
}
