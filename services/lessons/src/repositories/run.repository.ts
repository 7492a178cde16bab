import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { LessonsDb } from '../db.ts';
import type { GoalStatus, Mark, RunStatus } from '../domain/lesson-progress.ts';

type Q = Kysely<LessonsDb>;

const RUN_COLUMNS = [
  'id',
  'user_id',
  'user_name',
  'course',
  'lesson_key',
  'lesson_title',
  'status',
  'accepted_at',
  'started_at',
  'covered_at',
  'passed_at',
  'passed_late',
  'resume_from',
  'archived_at',
] as const;

/** A lesson run row. */
export type Run = NonNullable<Awaited<ReturnType<RunRepository['findLive']>>>;

/** Thrown by {@link RunRepository.lock} when another transaction holds the run (→ busy). */
export class RunBusy extends Error {
  constructor() {
    super('run is locked by another request');
    this.name = 'RunBusy';
  }
}

/** Lesson runs and the latest mark of each of their items. */
export class RunRepository {
  constructor(private readonly db: Q) {}

  /** The live (not archived) run of a student's lesson, if any. */
  findLive(user: string, course: string, lessonKey: string, q: Q = this.db) {
    return q
      .selectFrom('runs')
      .select(RUN_COLUMNS)
      .where('user_id', '=', user)
      .where('course', '=', course)
      .where('lesson_key', '=', lessonKey)
      .where('archived_at', 'is', null)
      .executeTakeFirst();
  }

  /** A run by id (archived ones too). */
  find(id: string, q: Q = this.db) {
    return q.selectFrom('runs').select(RUN_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /** The live run of a lesson, created (not_started, accepted now) when there is none. */
  async ensure(q: Q, v: { user: string; name: string; course: string; lessonKey: string; title: string }) {
    await q
      .insertInto('runs')
      .values({
        id: randomUUID(),
        user_id: v.user,
        user_name: v.name,
        course: v.course,
        lesson_key: v.lessonKey,
        lesson_title: v.title,
      })
      .onConflict((oc) => oc.columns(['user_id', 'course', 'lesson_key']).where('archived_at', 'is', null).doNothing())
      .execute();
  }

  /**
   * Locks a run for the rest of the transaction without waiting: a second writer of the same run
   * gets {@link RunBusy} at once instead of queueing behind the first (the spec's busy).
   */
  async lock(q: Q, id: string) {
    try {
      return await q
        .selectFrom('runs')
        .select(RUN_COLUMNS)
        .where('id', '=', id)
        .forUpdate()
        .noWait()
        .executeTakeFirst();
    } catch (err) {
      if ((err as { code?: string }).code === '55P03') throw new RunBusy();
      throw err;
    }
  }

  /** Live runs of a student in a course. */
  liveInCourse(user: string, course: string, q: Q = this.db) {
    return q
      .selectFrom('runs')
      .select(RUN_COLUMNS)
      .where('user_id', '=', user)
      .where('course', '=', course)
      .where('archived_at', 'is', null)
      .execute();
  }

  async update(
    q: Q,
    id: string,
    patch: Partial<{
      status: RunStatus;
      started_at: string;
      covered_at: string;
      passed_at: string;
      passed_late: boolean;
      resume_from: string;
      lesson_title: string;
      user_name: string;
    }>,
  ) {
    if (!Object.keys(patch).length) return;
    await q.updateTable('runs').set(patch).where('id', '=', id).execute();
  }

  /** Archives every live run of a student in a course (a reset of progress). */
  async archiveCourse(q: Q, user: string, course: string): Promise<number> {
    const res = await q
      .updateTable('runs')
      .set({ archived_at: sql<string>`now()` })
      .where('user_id', '=', user)
      .where('course', '=', course)
      .where('archived_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** The latest marks of a run, by item key. */
  async marks(runId: string, q: Q = this.db): Promise<Map<string, Mark>> {
    const rows = await q
      .selectFrom('goal_marks')
      .select(['goal', 'objective', 'status', 'evidence', 'session_id', 'marked_at'])
      .where('run_id', '=', runId)
      .execute();
    return new Map(rows.map((r) => [r.goal, r]));
  }

  /** Marks of many runs (goal_runs, history). */
  async marksOf(runIds: string[], q: Q = this.db) {
    if (!runIds.length) return new Map<string, Map<string, Mark>>();
    const rows = await q
      .selectFrom('goal_marks')
      .select(['run_id', 'goal', 'objective', 'status', 'evidence', 'session_id', 'marked_at'])
      .where('run_id', 'in', runIds)
      .execute();
    const out = new Map<string, Map<string, Mark>>();
    for (const { run_id, ...m } of rows) {
      const map = out.get(run_id) ?? new Map<string, Mark>();
      map.set(m.goal, m);
      out.set(run_id, map);
    }
    return out;
  }

  /** Writes a mark, replacing the item's previous one; returns the mark as stored. */
  async mark(
    q: Q,
    v: { run: string; goal: string; objective: string; status: GoalStatus; evidence: string | null; session: string },
  ): Promise<Mark> {
    return q
      .insertInto('goal_marks')
      .values({
        run_id: v.run,
        goal: v.goal,
        objective: v.objective,
        status: v.status,
        evidence: v.evidence,
        session_id: v.session,
      })
      .onConflict((oc) =>
        oc.columns(['run_id', 'goal']).doUpdateSet({
          objective: v.objective,
          status: v.status,
          evidence: v.evidence,
          session_id: v.session,
          marked_at: sql<string>`now()`,
        }),
      )
      .returning(['goal', 'objective', 'status', 'evidence', 'session_id', 'marked_at'])
      .executeTakeFirstOrThrow();
  }

  /** One page of a course's live runs, recently accepted first (goal_runs). */
  page(course: string, lessonKey: string | null, start: number, limit: number, q: Q = this.db) {
    let query = q.selectFrom('runs').select(RUN_COLUMNS).where('course', '=', course).where('archived_at', 'is', null);
    if (lessonKey !== null) query = query.where('lesson_key', '=', lessonKey);
    return query.orderBy('accepted_at', 'desc').orderBy('id').offset(start).limit(limit).execute();
  }
}
