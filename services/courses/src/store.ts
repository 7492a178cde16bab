import type { EventKey, EventPayload } from '@studium/contracts';
import { emitEvent } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { CoursesDb } from './db.ts';
import { type ActiveContent, courseCard } from './domain/card.ts';
import { type CoursePatch, CourseRepository, type CourseRow } from './repositories/course.repository.ts';
import { NoteRepository } from './repositories/note.repository.ts';
import { ReleaseRepository } from './repositories/release.repository.ts';
import { ReportRepository } from './repositories/report.repository.ts';
import { SessionRepository } from './repositories/session.repository.ts';

/** The repositories of the courses schema over one connection or transaction, and its outbox. */
export interface Store {
  courses: CourseRepository;
  releases: ReleaseRepository;
  notes: NoteRepository;
  reports: ReportRepository;
  sessions: SessionRepository;
  /** Records a catalog event in the outbox (inside the caller's transaction). */
  emit<K extends EventKey>(key: K, payload: EventPayload<K>): Promise<void>;
}

/** A store over a connection pool or a transaction. */
function storeOver(db: Kysely<CoursesDb>): Store {
  return {
    courses: new CourseRepository(db),
    releases: new ReleaseRepository(db),
    notes: new NoteRepository(db),
    reports: new ReportRepository(db),
    sessions: new SessionRepository(db),
    async emit(key, payload) {
      await emitEvent(db, key, payload);
    },
  };
}

/** Runs fn in one transaction: its writes and events commit together or not at all. */
export type Transact = <T>(fn: (s: Store) => Promise<T>) => Promise<T>;

/**
 * What createApp builds once and hands to every handler: the store over the pool (reads, single
 * writes) and `transaction` for writes that commit together. Handlers never see Kysely.
 */
export interface CoursesDeps {
  store: Store;
  transaction: Transact;
}

/** The store and transactions of the courses schema over one connection pool. */
export function coursesDeps(db: Kysely<CoursesDb>): CoursesDeps {
  return {
    store: storeOver(db),
    transaction: (fn) => db.transaction().execute((trx) => fn(storeOver(trx))),
  };
}

/**
 * Changes what the catalog shows of a course: applies the patch (bumping the card revision) and
 * records the full card (course_card_changed) in the same transaction.
 */
export async function changeCourse(
  s: Store,
  id: string,
  patch: CoursePatch,
  active: ActiveContent | null,
): Promise<CourseRow> {
  const row = await s.courses.update(id, patch);
  await s.emit('courses.course_card_changed', courseCard(row, active, row.updated_at));
  return row;
}
