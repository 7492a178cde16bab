import type { Release } from '@studium/contracts';
import type { Kysely, Selectable } from 'kysely';
import type { CoursesDb } from '../db.ts';

/** A release's record without its content. */
export type ReleaseMeta = Omit<Selectable<CoursesDb['releases']>, 'content' | 'lesson_count'>;

/** The active release with its content. */
export interface ActiveRelease extends ReleaseMeta {
  content: Release;
}

const META = [
  'id',
  'course',
  'version',
  'digest',
  'commit',
  'document_key',
  'published_at',
  'published_by',
  'active',
  'warnings',
] as const;

/** All SQL of releases. */
export class ReleaseRepository {
  constructor(private readonly db: Kysely<CoursesDb>) {}

  /** The course's active release with content (one indexed lookup), or undefined. */
  async active(course: string): Promise<ActiveRelease | undefined> {
    const row = await this.db
      .selectFrom('releases')
      .select([...META, 'content'])
      .where('course', '=', course)
      .where('active', '=', true)
      .executeTakeFirst();
    return row?.content ? { ...row, content: row.content } : undefined;
  }

  /** A release of the course by id, with content, active or not. */
  async withContent(course: string, id: string): Promise<ActiveRelease | undefined> {
    const row = await this.db
      .selectFrom('releases')
      .select([...META, 'content'])
      .where('course', '=', course)
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.content ? { ...row, content: row.content } : undefined;
  }

  /** The course's active release without content. */
  async activeMeta(course: string): Promise<ReleaseMeta | undefined> {
    return this.db
      .selectFrom('releases')
      .select(META)
      .where('course', '=', course)
      .where('active', '=', true)
      .executeTakeFirst();
  }

  async byDigest(course: string, digest: string): Promise<ReleaseMeta | undefined> {
    return this.db
      .selectFrom('releases')
      .select(META)
      .where('course', '=', course)
      .where('digest', '=', digest)
      .executeTakeFirst();
  }

  async maxVersion(course: string): Promise<number> {
    const row = await this.db
      .selectFrom('releases')
      .select((eb) => eb.fn.max('version').as('v'))
      .where('course', '=', course)
      .executeTakeFirst();
    return row?.v ?? 0;
  }

  /** The course's history, newest first. */
  async list(course: string): Promise<ReleaseMeta[]> {
    return this.db
      .selectFrom('releases')
      .select(META)
      .where('course', '=', course)
      .orderBy('version', 'desc')
      .execute();
  }

  /**
   * Retires the active release. It keeps its content: releases are immutable, and lessons and
   * homework read the release a student's run, attempt or submission was made on.
   */
  async retireActive(course: string): Promise<void> {
    await this.db
      .updateTable('releases')
      .set({ active: false })
      .where('course', '=', course)
      .where('active', '=', true)
      .execute();
  }

  /** Makes a recorded version active again with its content (the same digest published again). */
  async reactivate(id: string, content: Release): Promise<void> {
    await this.db
      .updateTable('releases')
      .set({ active: true, content: JSON.stringify(content) })
      .where('id', '=', id)
      .execute();
  }

  /** Inserts a new active release (the previous one must be retired first). */
  async insert(row: Omit<ReleaseMeta, 'published_at' | 'active'> & { content: Release; lesson_count: number }) {
    await this.db
      .insertInto('releases')
      .values({
        ...row,
        active: true,
        content: JSON.stringify(row.content),
        warnings: JSON.stringify(row.warnings),
      })
      .execute();
  }
}
