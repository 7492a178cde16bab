import { CompiledQuery, sql } from 'kysely';
import type pg from 'pg';
import type { Mark } from '../domain/lesson-progress.ts';
import type { PastAttempt } from '../domain/quiz.ts';
import type { Trx } from '../write.ts';
import type { Run } from './run.repository.ts';
import type { Session } from './session.repository.ts';

/** A past attempt as the course state carries it (what quizStanding decides on). */
export type StateAttempt = PastAttempt & { run_id: string };

/**
 * A student's state in a course as start_lesson and course_outline decide on it, read in one
 * statement (it used to take six to nine round trips: the latest session, the course's session
 * space, the active_releases row, the live runs, their marks and their attempts).
 */
export interface CourseState {
  /** The course asked for, or (none asked) the course of the latest session; null: neither. */
  course: string | null;
  /** The student's latest session (any course). */
  last: { course: string; lesson_key: string } | null;
  /** The course's active release as active_releases records it; null before lessons learned of one. */
  activeRelease: string | null;
  /** The space of the student's latest open session on the course (the course tools' default space). */
  courseSpace: string | null;
  /** Live runs of the student in the course. */
  runs: Run[];
  /** The latest marks of each live run, by run id and item key. */
  marks: Map<string, Map<string, Mark>>;
  /** The quiz attempts of the live runs. */
  attempts: StateAttempt[];
}

const COURSE_STATE = {
  name: 'lessons_course_state',
  text: `with last as (
      select course, lesson_key from sessions where user_id = $1 order by last_activity_at desc limit 1),
    c as (select coalesce($2::text, (select course from last)) as course),
    r as (
      select id, user_id, user_name, course, lesson_key, lesson_title, status, accepted_at, started_at,
        covered_at, passed_at, passed_late, resume_from, archived_at
      from runs where user_id = $1 and course = (select course from c) and archived_at is null)
    select (select course from c) as course,
      (select json_build_object('course', course, 'lesson_key', lesson_key) from last) as last,
      (select release from active_releases where course = (select course from c)) as active_release,
      (select space from sessions
        where user_id = $1 and course = (select course from c) and status = 'open'
        order by last_activity_at desc limit 1) as course_space,
      (select coalesce(json_agg(r), '[]') from r) as runs,
      (select coalesce(json_agg(json_build_array(m.run_id, m.goal, m.objective, m.status, m.evidence, m.session_id,
          m.marked_at)), '[]')
        from goal_marks m where m.run_id in (select id from r)) as marks,
      (select coalesce(json_agg(json_build_array(a.run_id, a.status, a.passed, a.finished_at)), '[]')
        from quiz_attempts a where a.run_id in (select id from r)) as attempts`,
};

/** PostgreSQL's timestamp text inside json as the type parser gives timestamps elsewhere (ISO, UTC). */
const iso = (v: string | null) => (v === null ? null : new Date(v).toISOString());

type MarkRow = [string, string, string, Mark['status'], string | null, string, string];
type AttemptRow = [string, PastAttempt['status'], boolean | null, string | null];

/** Reads {@link CourseState} (a named statement, prepared once per connection). */
export class CourseStates {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Inside a transaction, pass it: the read runs on the transaction's own connection. Taking a
   * second connection from the pool while holding one deadlocks once the pool is that small
   * (every connection held by a transaction waiting for another; seen with DB_POOL_MAX=2).
   */
  async of(user: string, course: string | null, trx?: Trx): Promise<CourseState> {
    const rows = trx
      ? (await trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(COURSE_STATE.text, [user, course]))).rows
      : (await this.pool.query({ ...COURSE_STATE, values: [user, course] })).rows;
    const row = rows[0] as Record<string, never>;
    const runs = (row.runs as Run[]).map((r) => ({
      ...r,
      accepted_at: iso(r.accepted_at) as string,
      started_at: iso(r.started_at),
      covered_at: iso(r.covered_at),
      passed_at: iso(r.passed_at),
      archived_at: iso(r.archived_at),
    }));
    const marks = new Map<string, Map<string, Mark>>();
    for (const [run, goal, objective, status, evidence, session_id, marked_at] of row.marks as MarkRow[]) {
      const map = marks.get(run) ?? new Map<string, Mark>();
      map.set(goal, { goal, objective, status, evidence, session_id, marked_at: iso(marked_at) as string });
      marks.set(run, map);
    }
    const attempts = (row.attempts as AttemptRow[]).map(([run_id, status, passed, finished_at]) => ({
      run_id,
      status,
      passed,
      finished_at: iso(finished_at),
    }));
    return {
      course: row.course,
      last: row.last,
      activeRelease: row.active_release,
      courseSpace: row.course_space,
      runs,
      marks,
      attempts,
    };
  }
}

/** Lesson keys of the course the student has passed. */
export function passedIn(state: CourseState): Set<string> {
  return new Set(state.runs.filter((r) => r.status === 'passed').map((r) => r.lesson_key));
}

/** What start_lesson decides on under the run's lock, read in one statement (it took four). */
export interface RunState {
  /** Sessions of the run, oldest first. */
  sessions: Session[];
  marks: Map<string, Mark>;
  /** Sessions of the student in the course on live runs, counted up to two. */
  courseSessions: number;
  attempts: PastAttempt[];
}

/** {@link RunState} of a locked run, in the run's transaction. */
export async function runState(trx: Trx, runId: string, user: string, course: string): Promise<RunState> {
  const { rows } = await sql<{
    sessions: Session[];
    marks: Array<[string, string, Mark['status'], string | null, string, string]>;
    course_sessions: number;
    attempts: Array<[PastAttempt['status'], boolean | null, string | null]>;
  }>`select
      (select coalesce(json_agg(s order by s.started_at), '[]') from (
        select id, run_id, user_id, course, lesson_key, space, organization, channel, status, release,
          started_at, last_activity_at, closed_at, signals
        from sessions where run_id = ${runId}) s) as sessions,
      (select coalesce(json_agg(json_build_array(goal, objective, status, evidence, session_id, marked_at)), '[]')
        from goal_marks where run_id = ${runId}) as marks,
      (select count(*)::int from (
        select 1 from sessions s join runs r on r.id = s.run_id
        where s.user_id = ${user} and s.course = ${course} and r.archived_at is null limit 2) x) as course_sessions,
      (select coalesce(json_agg(json_build_array(status, passed, finished_at)), '[]')
        from quiz_attempts where run_id = ${runId}) as attempts`.execute(trx);
  const row = rows[0] as (typeof rows)[number];
  return {
    sessions: row.sessions.map((s) => ({
      ...s,
      started_at: iso(s.started_at) as string,
      last_activity_at: iso(s.last_activity_at) as string,
      closed_at: iso(s.closed_at),
    })),
    marks: new Map(
      row.marks.map(([goal, objective, status, evidence, session_id, marked_at]) => [
        goal,
        { goal, objective, status, evidence, session_id, marked_at: iso(marked_at) as string },
      ]),
    ),
    courseSessions: row.course_sessions,
    attempts: row.attempts.map(([status, passed, finished_at]) => ({ status, passed, finished_at: iso(finished_at) })),
  };
}
