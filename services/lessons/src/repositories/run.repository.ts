import { randomUUID } from 'node:crypto';
import type { AccessChanged } from '@studium/contracts';
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import type { LessonsDb } from '../db.ts';
import type { GoalStatus, Mark, RunStatus } from '../domain/lesson-progress.ts';
import type { Session } from './session.repository.ts';

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

/** What mark_goal decides on: its session, the course's active release as recorded, the run's status and marks. */
export interface MarkContext {
  session: Session;
  /** The course's active release in active_releases; null before lessons learned of one. */
  activeRelease: string | null;
  runStatus: RunStatus;
  marks: Map<string, Mark>;
  /**
   * The student's access document from the projection, read with the session (null: none);
   * undefined in a context kept between calls, whose check reads the current one.
   */
  accessDoc?: AccessChanged | null;
}

/** mark_goal's write, as the migration's function mark_goal_write takes it. */
export interface MarkWrite {
  run: string;
  session: string;
  course: string;
  goal: string;
  objective: string;
  status: GoalStatus;
  evidence: string | null;
  resume: string | null;
  /** The state the decision was made on. */
  seen: Pick<MarkContext, 'runStatus' | 'marks' | 'activeRelease'>;
  next: RunStatus;
  /**
   * Envelopes for the outbox, in order; the function sets each one's data.at to the mark's time.
   * mark_goal gives one (goal_marked, which also says when the mark covered the lesson).
   */
  events: Array<{ subject: string; payload: unknown }>;
}

export type MarkWritten =
  | { outcome: 'ok'; at: string }
  | { outcome: 'run_archived' }
  | { outcome: 'session_closed'; status: string }
  | { outcome: 'busy' }
  /** The state moved since the one decided on: nothing written; here is the current one. */
  | { outcome: 'stale'; current: Pick<MarkContext, 'runStatus' | 'marks' | 'activeRelease'> };

type MarkRow = [string, string, GoalStatus, string | null, string, string];

/** Marks as the statements return them (json arrays, PostgreSQL's timestamp text) by item key. */
function marksOf(rows: MarkRow[]): Map<string, Mark> {
  const byGoal = new Map<string, Mark>();
  for (const [goal, objective, status, evidence, session_id, marked_at] of rows) {
    byGoal.set(goal, { goal, objective, status, evidence, session_id, marked_at: new Date(marked_at).toISOString() });
  }
  return byGoal;
}

// mark_goal's two statements, prepared once per connection (named statements).
const MARK_CONTEXT = {
  name: 'lessons_mark_context',
  text: `select s.id, s.run_id, s.user_id, s.course, s.lesson_key, s.space, s.organization, s.channel, s.status,
      s.release, s.started_at, s.last_activity_at, s.closed_at, s.signals,
      a.release as active_release, r.status as run_status,
      (select d.doc from access_students d where d.user_id = s.user_id) as access_doc,
      (select coalesce(json_agg(json_build_array(m.goal, m.objective, m.status, m.evidence, m.session_id, m.marked_at)), '[]')
         from goal_marks m where m.run_id = s.run_id) as marks
    from sessions s
    join runs r on r.id = s.run_id
    left join active_releases a on a.course = s.course
    where s.id = $1`,
};
const MARK_WRITE = {
  name: 'lessons_mark_goal_write',
  text: `select outcome, session_status, marked_at, run_status, marks, active_release
    from mark_goal_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
};

/** Lesson runs and the latest mark of each of their items. */
export class RunRepository {
  constructor(
    private readonly db: Q,
    /** The pool under `db`, for mark_goal's prepared statements. */
    private readonly pool?: pg.Pool,
  ) {}

  /** mark_goal's read, one round trip: the session with its run's status and marks and the active release. */
  async markContext(sessionId: string): Promise<MarkContext | undefined> {
    const { rows } = await this.requirePool().query({ ...MARK_CONTEXT, values: [sessionId] });
    const row = rows[0];
    if (!row) return undefined;
    const { active_release, run_status, marks, access_doc, ...session } = row;
    return {
      session: session as Session,
      activeRelease: active_release,
      runStatus: run_status,
      marks: marksOf(marks),
      accessDoc: access_doc ?? null,
    };
  }

  /**
   * mark_goal's write, one statement (its own transaction): see migrations/0002_mark_goal_write.sql.
   * The run held by another transaction (55P03) is busy as well.
   */
  async writeMark(w: MarkWrite): Promise<MarkWritten> {
    const seen: Record<string, string> = {};
    for (const [goal, m] of w.seen.marks) seen[goal] = m.status;
    let row: {
      outcome: MarkWritten['outcome'];
      session_status: string | null;
      marked_at: string | null;
      run_status: RunStatus | null;
      marks: MarkRow[] | null;
      active_release: string | null;
    };
    try {
      const { rows } = await this.requirePool().query({
        ...MARK_WRITE,
        values: [
          w.run,
          w.session,
          w.course,
          w.goal,
          w.objective,
          w.status,
          w.evidence,
          w.resume,
          w.seen.runStatus,
          JSON.stringify(seen),
          w.seen.activeRelease,
          w.next,
          JSON.stringify(w.events),
        ],
      });
      row = rows[0];
    } catch (err) {
      if ((err as { code?: string }).code === '55P03') return { outcome: 'busy' };
      throw err;
    }
    switch (row.outcome) {
      case 'ok':
        return { outcome: 'ok', at: row.marked_at as string };
      case 'session_closed':
        return { outcome: 'session_closed', status: row.session_status as string };
      case 'stale':
        return {
          outcome: 'stale',
          current: {
            runStatus: row.run_status as RunStatus,
            marks: marksOf(row.marks ?? []),
            activeRelease: row.active_release,
          },
        };
      default:
        return { outcome: row.outcome };
    }
  }

  private requirePool(): pg.Pool {
    if (!this.pool) throw new Error('RunRepository: no pool for prepared statements');
    return this.pool;
  }

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

  /**
   * The live run of a lesson, created (not_started, accepted now) when there is none; returns the
   * run when this call created it (undefined: one existed).
   */
  async ensure(q: Q, v: { user: string; name: string; course: string; lessonKey: string; title: string }) {
    return q
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
      .returning(RUN_COLUMNS)
      .executeTakeFirst();
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
