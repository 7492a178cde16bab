import type { CourseCardChanged } from '@studium/contracts';
import { type Kysely, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import type { CardLesson, EnrollmentDb } from '../db.ts';
import type { ProgramRow } from '../domain/programs.ts';
import { queryPrepared } from './prepared.ts';
import { programsJson } from './program.repository.ts';

/** A card as enroll and notify_when_released need it. */
export interface CardRow {
  course: string;
  title: string;
  summary: string;
  status: 'draft' | 'upcoming' | 'published';
  first_lesson: CardLesson | null;
  testers: string[];
}

/** A catalog entry for one student in one space. */
export interface CatalogRow {
  course: string;
  title: string;
  summary: string;
  status: 'draft' | 'upcoming' | 'published';
  objectives: string[];
  notify: boolean | null;
  /** A course not open yet that the student may study through a tester grant (issue 31). */
  testing: boolean;
  /** Programs that contain the course; null when none. */
  programs: ProgramRow[] | null;
}

/** Who looks at the catalog and which part of it they see (see domain/space.ts). */
export interface CatalogQuery {
  user: string;
  /** Organizations whose catalogs are visible; null = the whole catalog. */
  catalogOrgs: string[] | null;
  /** Enrollments in these spaces take a course out of the catalog. */
  courseSpaces: string[];
}

/** All SQL of the local catalog read model. */
export class CatalogRepository {
  constructor(
    private readonly db: Kysely<EnrollmentDb>,
    /** When given, the hot list query runs as a prepared statement on it. */
    private readonly pool?: pg.Pool,
  ) {}

  /** Stores a card unless a newer (or the same) revision is already there; true when stored. */
  async upsertCard(trx: Transaction<EnrollmentDb>, card: CourseCardChanged): Promise<boolean> {
    const row = {
      course: card.course,
      revision: card.revision,
      course_key: card.course_key,
      title: card.title,
      summary: card.summary,
      description: card.description,
      status: card.status,
      objectives: JSON.stringify(card.objectives),
      release: card.release,
      version: card.version,
      lessons: JSON.stringify(card.lessons.map(({ id, key, title, chapter }) => ({ id, key, title, chapter }))),
      lessons_total: card.lessons.length,
      testers: card.testers ?? [],
      changed_at: card.at,
    };
    const { course: _course, ...changes } = row;
    const res = await trx
      .insertInto('catalog')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('course')
          .doUpdateSet({ ...changes, updated_at: sql`now()` })
          .where('catalog.revision', '<', card.revision),
      )
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** One card with its first lesson. */
  async findCard(course: string): Promise<CardRow | undefined> {
    return this.db
      .selectFrom('catalog')
      .select([
        'course',
        'title',
        'summary',
        'status',
        'testers',
        sql<CardLesson | null>`case when lessons_total > 0 then lessons -> 0 end`.as('first_lesson'),
      ])
      .where('course', '=', course)
      .executeTakeFirst();
  }

  /**
   * The catalog of one student in one space, with subscriptions, in one prepared query:
   * published courses and announcements, and the unopened courses the student is a tester of,
   * visible to the space's organizations (enroll's rule), minus the courses the student already
   * has there.
   */
  async listFor(q: CatalogQuery): Promise<CatalogRow[]> {
    const query = this.db
      .selectFrom('catalog as c')
      .leftJoin('subscriptions as s', (j) => j.onRef('s.course', '=', 'c.course').on('s.user_id', '=', q.user))
      .select([
        'c.course',
        'c.title',
        'c.summary',
        'c.status',
        'c.objectives',
        's.notify',
        sql<boolean>`(c.status <> 'published' and ${q.user} = any(c.testers))`.as('testing'),
        programsJson(q.user, sql.ref('c.course')).as('programs'),
      ])
      .where(sql<boolean>`(c.status in ('published', 'upcoming') or ${q.user} = any(c.testers))`)
      .$if(q.catalogOrgs !== null, (qb) =>
        qb.where(
          sql<boolean>`exists (select 1 from org_courses oc where oc.course = c.course and oc.org = any(${q.catalogOrgs}::text[]))`,
        ),
      )
      .where(
        sql<boolean>`not exists (select 1 from enrollments e
          where e.user_id = ${q.user} and e.course = c.course and e.space = any(${q.courseSpaces}::text[]))`,
      )
      .orderBy('c.title')
      .orderBy('c.course');
    return this.pool ? queryPrepared(this.pool, query) : query.execute();
  }
}
