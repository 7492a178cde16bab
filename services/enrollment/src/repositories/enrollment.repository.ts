import { type Kysely, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import type { EnrollmentDb } from '../db.ts';
import type { CourseEnrollment } from '../domain/course-space.ts';
import type { ProgramRow } from '../domain/programs.ts';
import { queryPrepared } from './prepared.ts';
import { programsJson } from './program.repository.ts';

/** One of the student's courses in a space, with progress and programs. */
export interface MyCourseRow {
  course: string;
  space: string;
  title: string;
  organization: string | null;
  self_enrolled: boolean;
  mandatory: boolean | null;
  deadline: string | null;
  enrolled_at: string;
  overdue: boolean;
  lessons_total: number;
  lessons_done: number;
  /** Lessons the student can no longer pass (a required quiz with no attempt left). */
  lessons_failed: number;
  completed: boolean;
  /** Nothing is left to study: every lesson passed or failed. */
  finished: boolean;
  next_lesson: { id: string; title: string } | null;
  /** Studied through a tester grant while the course is not open yet. */
  testing: boolean;
  /** Programs that contain the course; null when none. */
  programs: ProgramRow[] | null;
}

/** A new enrollment. */
export interface NewEnrollment {
  user_id: string;
  course: string;
  space: string;
  self_enrolled: boolean;
  mandatory: boolean | null;
  deadline: string | null;
  /** Through a tester grant of a course not open yet. */
  tester?: boolean;
}

/** An enrollment as the admin lists it. */
export interface EnrollmentListRow {
  user_id: string;
  course: string;
  space: string;
  organization: string | null;
  self_enrolled: boolean;
  mandatory: boolean | null;
  deadline: string | null;
  enrolled_at: string;
  lessons_done: number;
  completed_at: string | null;
}

/** All SQL of enrollments. */
export class EnrollmentRepository {
  constructor(
    private readonly db: Kysely<EnrollmentDb>,
    /** When given, the hot list query runs as a prepared statement on it. */
    private readonly pool?: pg.Pool,
  ) {}

  /**
   * The student's courses in the given spaces, one row per course (in the personal space an
   * organization's assignment wins over a self-enrollment: it carries mandatory and deadline),
   * with card and progress, in one prepared query.
   */
  async listMine(user: string, spaces: string[]): Promise<MyCourseRow[]> {
    const one = this.db
      .selectFrom('enrollments as e')
      .leftJoin('catalog as c', 'c.course', 'e.course')
      .distinctOn('e.course')
      .select([
        'e.course',
        'e.space',
        sql<string>`coalesce(c.title, e.course)`.as('title'),
        'e.organization',
        'e.self_enrolled',
        'e.mandatory',
        'e.deadline',
        'e.enrolled_at',
        sql<boolean>`(e.deadline is not null and e.deadline < now() and e.completed_at is null)`.as('overdue'),
        sql<number>`coalesce(c.lessons_total, 0)`.as('lessons_total'),
        'e.lessons_done',
        sql<number>`coalesce(cardinality(e.failed_lessons), 0)`.as('lessons_failed'),
        sql<boolean>`(e.completed_at is not null)`.as('completed'),
        sql<boolean>`(e.completed_at is not null or e.finished_at is not null)`.as('finished'),
        // The first lesson in course order neither passed nor failed (a failed one cannot be studied on).
        sql<MyCourseRow['next_lesson']>`case when e.completed_at is not null or e.finished_at is not null then null
          when e.passed_lessons is null then
            case when e.lessons_done < coalesce(c.lessons_total, 0)
              then jsonb_build_object('id', c.lessons -> e.lessons_done ->> 'id', 'title', c.lessons -> e.lessons_done ->> 'title')
            end
          else (select jsonb_build_object('id', l ->> 'id', 'title', l ->> 'title')
            from jsonb_array_elements(coalesce(c.lessons, '[]'::jsonb)) with ordinality as x(l, n)
            where not (l ->> 'key' = any(e.passed_lessons || coalesce(e.failed_lessons, '{}'))) order by n limit 1)
          end`.as('next_lesson'),
        sql<boolean>`(e.tester and c.status is distinct from 'published')`.as('testing'),
        programsJson(user, sql.ref('e.course')).as('programs'),
      ])
      .where('e.user_id', '=', user)
      .where(sql<boolean>`e.space = any(${spaces}::text[])`)
      // A tester's enrollment is listed while the grant stands or once the course is open, as
      // course_access counts it (a revoked tester no longer sees a course they cannot study).
      .where(sql<boolean>`(not e.tester or c.status = 'published' or ${user} = any(c.testers))`)
      .orderBy('e.course')
      .orderBy('e.self_enrolled')
      .orderBy(sql`e.mandatory desc nulls last`)
      .orderBy(sql`e.deadline nulls last`)
      .orderBy('e.enrolled_at');
    const query = this.db
      .selectFrom(one.as('m'))
      .selectAll()
      .orderBy('m.completed')
      .orderBy(sql`m.deadline nulls last`)
      .orderBy('m.enrolled_at', 'desc')
      .orderBy('m.course');
    return this.pool ? queryPrepared(this.pool, query) : query.execute();
  }

  /**
   * course_access's read in one statement: the student's enrollments in the course
   * (with overdue by the database clock) and the programs that hold it (ProgramRepository.programsFor).
   */
  async accessRows(user: string, course: string): Promise<{ enrollments: CourseEnrollment[]; programs: ProgramRow[] }> {
    const { rows } = await sql<{ enrollments: CourseEnrollment[]; programs: ProgramRow[] | null }>`select
        (select coalesce(json_agg(json_build_object('space', space, 'organization', organization,
            'self_enrolled', self_enrolled, 'mandatory', mandatory, 'deadline', deadline, 'enrolled_at', enrolled_at,
            'overdue', (deadline is not null and deadline < now() and completed_at is null))), '[]')
          from enrollments where user_id = ${user} and course = ${course}
            -- A tester's enrollment counts while the grant stands or once the course is open (issue 24).
            and (not tester or exists (
              select 1 from catalog c where c.course = enrollments.course
                and (c.status = 'published' or ${user} = any(c.testers))))) as enrollments,
        ${programsJson(user, sql`${course}::text`)} as programs`.execute(this.db);
    const row = rows[0];
    // PostgreSQL's timestamp text inside json, as the type parser gives timestamps elsewhere.
    const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());
    return {
      enrollments: (row?.enrollments ?? []).map((e) => ({
        ...e,
        deadline: iso(e.deadline),
        enrolled_at: iso(e.enrolled_at) as string,
      })),
      programs: row?.programs ?? [],
    };
  }

  /**
   * A progress report of the lessons service into every enrollment of the course; a report older
   * than the one applied (a redelivery, events out of order) changes nothing. The first completion
   * and finishing times are kept.
   */
  async applyProgress(
    trx: Transaction<EnrollmentDb>,
    p: {
      user: string;
      course: string;
      lessonsDone: number;
      passed?: string[];
      /** Failed lesson keys; absent in reports written before lessons sent them (kept as they are). */
      failed?: string[];
      completed: boolean;
      /** Nothing left to study (every lesson passed or failed); completed implies it. */
      finished: boolean;
      at: string;
    },
  ): Promise<number> {
    const res = await trx
      .updateTable('enrollments')
      .set({
        lessons_done: p.lessonsDone,
        ...(p.passed ? { passed_lessons: p.passed } : {}),
        ...(p.failed ? { failed_lessons: p.failed } : {}),
        completed_at: p.completed ? sql<string>`coalesce(completed_at, ${p.at}::timestamptz)` : null,
        finished_at: p.finished || p.completed ? sql<string>`coalesce(finished_at, ${p.at}::timestamptz)` : null,
        progress_at: p.at,
      })
      .where('user_id', '=', p.user)
      .where('course', '=', p.course)
      .where(sql<boolean>`(progress_at is null or progress_at <= ${p.at}::timestamptz)`)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** True when the student has the course in one of these spaces. */
  async hasCourse(user: string, course: string, spaces: string[]): Promise<boolean> {
    const row = await this.db
      .selectFrom('enrollments')
      .select('course')
      .where('user_id', '=', user)
      .where('course', '=', course)
      .where('space', 'in', spaces)
      .executeTakeFirst();
    return !!row;
  }

  /** Inserts a self-enrollment; false when the row already exists (a concurrent enroll won). */
  async insert(trx: Transaction<EnrollmentDb>, e: NewEnrollment): Promise<string | null> {
    const row = await trx
      .insertInto('enrollments')
      .values(e)
      .onConflict((oc) => oc.doNothing())
      .returning('enrolled_at')
      .executeTakeFirst();
    return row?.enrolled_at ?? null;
  }

  /** An organization's assignment: creates the enrollment or turns a self-enrollment into an assignment. */
  async assign(
    trx: Transaction<EnrollmentDb>,
    a: { user_id: string; course: string; org: string; mandatory: boolean; deadline: string | null },
  ): Promise<{ created: boolean; enrolled_at: string }> {
    const row = await trx
      .insertInto('enrollments')
      .values({
        user_id: a.user_id,
        course: a.course,
        space: a.org,
        self_enrolled: false,
        mandatory: a.mandatory,
        deadline: a.deadline,
      })
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'course', 'space'])
          .doUpdateSet({ self_enrolled: false, mandatory: a.mandatory, deadline: a.deadline }),
      )
      .returning(['enrolled_at', sql<boolean>`(xmax = 0)`.as('created')])
      .executeTakeFirstOrThrow();
    return row;
  }

  /**
   * Progress of a course reported by lessons (shared across spaces: every enrollment of the
   * user in the course gets it). The hook for the lessons service's completion events.
   */
  async recordProgress(user: string, course: string, lessonsDone: number, completedAt: string | null): Promise<number> {
    const res = await this.db
      .updateTable('enrollments')
      .set({ lessons_done: lessonsDone, completed_at: completedAt })
      .where('user_id', '=', user)
      .where('course', '=', course)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** Enrollments filtered by user, organization and course (admin). */
  async list(filter: { user?: string; org?: string; course?: string } = {}): Promise<EnrollmentListRow[]> {
    let q = this.db
      .selectFrom('enrollments')
      .select([
        'user_id',
        'course',
        'space',
        'organization',
        'self_enrolled',
        'mandatory',
        'deadline',
        'enrolled_at',
        'lessons_done',
        'completed_at',
      ])
      .orderBy('user_id')
      .orderBy('course')
      .orderBy('space');
    if (filter.user) q = q.where('user_id', '=', filter.user);
    if (filter.org) q = q.where('organization', '=', filter.org);
    if (filter.course) q = q.where('course', '=', filter.course);
    return q.execute();
  }
}
