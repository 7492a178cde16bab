import { randomUUID } from 'node:crypto';
import type { AccessChanged } from '@studium/contracts';
import { type Kysely, sql } from 'kysely';
import type { Channel, LessonsDb, SessionStatus } from '../db.ts';
import type { Mark } from '../domain/lesson-progress.ts';

type Q = Kysely<LessonsDb>;

export const SESSION_COLUMNS = [
  'id',
  'run_id',
  'user_id',
  'course',
  'lesson_key',
  'space',
  'organization',
  'channel',
  'status',
  'release',
  'started_at',
  'last_activity_at',
  'closed_at',
  'signals',
] as const;

/**
 * The session's student's access document from the access projection (null without one), read
 * with the session: the access check of a session tool then makes no round trip of its own.
 */
export const ACCESS_DOC =
  sql<AccessChanged | null>`(select d.doc from access_students d where d.user_id = s.user_id)`.as('access_doc');

export type MarkRow = [string, string, Mark['status'], string | null, string, string];

/** Marks as the json of a statement gives them (PostgreSQL's timestamp text), by item key. */
export function marksFrom(rows: readonly MarkRow[]): Map<string, Mark> {
  return new Map(
    rows.map(([goal, objective, status, evidence, session_id, marked_at]) => [
      goal,
      { goal, objective, status, evidence, session_id, marked_at: new Date(marked_at).toISOString() },
    ]),
  );
}

/** {@link SessionRepository.findWithRun}: a session with its run's marks and the course's passed lessons. */
export interface SessionWithRun {
  session: Session;
  marks: Map<string, Mark>;
  passed: Set<string>;
  /** The course's active release as active_releases records it (null: none yet). */
  activeRelease: string | null;
  /** The student's access document (see {@link ACCESS_DOC}). */
  accessDoc: AccessChanged | null;
}

/** A session to create. */
export interface NewSession {
  run: string;
  user: string;
  course: string;
  lessonKey: string;
  space: string;
  organization: string | null;
  channel: Channel;
  release: string;
  signals: string[];
}

/** A session row. */
export type Session = NonNullable<Awaited<ReturnType<SessionRepository['find']>>>;

/** Lesson sessions: one run, one space, one channel. */
export class SessionRepository {
  constructor(private readonly db: Q) {}

  find(id: string, q: Q = this.db) {
    return q.selectFrom('sessions').select(SESSION_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /** A session with its course's active release as active_releases records it (null: none yet). */
  async findWithActive(
    id: string,
    q: Q = this.db,
  ): Promise<{ session: Session; activeRelease: string | null; accessDoc: AccessChanged | null } | undefined> {
    const row = await q
      .selectFrom('sessions as s')
      .leftJoin('active_releases as a', 'a.course', 's.course')
      .select(SESSION_COLUMNS.map((c) => `s.${c}` as const))
      .select('a.release as active_release')
      .select(ACCESS_DOC)
      .where('s.id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const { active_release, access_doc, ...session } = row;
    return { session, activeRelease: active_release, accessDoc: access_doc };
  }

  /**
   * A session as a write under its run's lock sees it, in one statement: the session, the latest
   * marks of its run, the lesson keys the student has passed in the course (live runs) and the
   * course's active release row.
   */
  async findWithRun(id: string, q: Q = this.db): Promise<SessionWithRun | undefined> {
    const row = await q
      .selectFrom('sessions as s')
      .select(SESSION_COLUMNS.map((c) => `s.${c}` as const))
      .select([
        sql<MarkRow[]>`(select coalesce(json_agg(json_build_array(m.goal, m.objective, m.status, m.evidence,
          m.session_id, m.marked_at)), '[]') from goal_marks m where m.run_id = s.run_id)`.as('marks'),
        sql<string[]>`(select coalesce(json_agg(r.lesson_key), '[]') from runs r
          where r.user_id = s.user_id and r.course = s.course and r.archived_at is null and r.status = 'passed')`.as(
          'passed',
        ),
        sql<string | null>`(select a.release from active_releases a where a.course = s.course)`.as('active_release'),
        ACCESS_DOC,
      ])
      .where('s.id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const { marks, passed, active_release, access_doc, ...session } = row;
    return {
      session,
      activeRelease: active_release,
      accessDoc: access_doc,
      marks: marksFrom(marks),
      passed: new Set(passed),
    };
  }

  /** The student's latest session (any course), for start_lesson without arguments. */
  latestOfUser(user: string, q: Q = this.db) {
    return q
      .selectFrom('sessions')
      .select(SESSION_COLUMNS)
      .where('user_id', '=', user)
      .orderBy('last_activity_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The space of the student's latest open session on a course (the course tools' default space). */
  async spaceOfCourse(user: string, course: string, q: Q = this.db): Promise<string | null> {
    const row = await q
      .selectFrom('sessions')
      .select('space')
      .where('user_id', '=', user)
      .where('course', '=', course)
      .where('status', '=', 'open')
      .orderBy('last_activity_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.space ?? null;
  }

  /**
   * The student's open session on a course in a space with the latest activity since `activeSince`,
   * on a live (not archived) run; update_artifact's mid-session progress.
   */
  openInSpace(user: string, course: string, space: string, activeSince: Date, q: Q = this.db) {
    return (
      q
        .selectFrom('sessions')
        .innerJoin('runs', 'runs.id', 'sessions.run_id')
        .select(['sessions.id', 'sessions.run_id', 'sessions.lesson_key'])
        // With the course's active release row and the run's marks: session_progress in one statement.
        .select([
          sql<string | null>`(select a.release from active_releases a where a.course = sessions.course)`.as(
            'active_release',
          ),
          sql<MarkRow[]>`(select coalesce(json_agg(json_build_array(m.goal, m.objective, m.status, m.evidence,
          m.session_id, m.marked_at)), '[]') from goal_marks m where m.run_id = sessions.run_id)`.as('marks'),
        ])
        .where('sessions.user_id', '=', user)
        .where('sessions.course', '=', course)
        .where('sessions.space', '=', space)
        .where('sessions.status', '=', 'open')
        .where('sessions.last_activity_at', '>=', activeSince.toISOString())
        .where('runs.archived_at', 'is', null)
        .orderBy('sessions.last_activity_at', 'desc')
        .limit(1)
        .executeTakeFirst()
    );
  }

  /** Sessions of a run, oldest first. */
  ofRun(runId: string, q: Q = this.db) {
    return q.selectFrom('sessions').select(SESSION_COLUMNS).where('run_id', '=', runId).orderBy('started_at').execute();
  }

  /** Whether the student had any session in the course (live runs only), besides `except`. */
  async anyInCourse(user: string, course: string, except: string | null, q: Q = this.db): Promise<boolean> {
    let query = q
      .selectFrom('sessions')
      .innerJoin('runs', 'runs.id', 'sessions.run_id')
      .select('sessions.id')
      .where('sessions.user_id', '=', user)
      .where('sessions.course', '=', course)
      .where('runs.archived_at', 'is', null);
    if (except) query = query.where('sessions.id', '!=', except);
    const row = await query.limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** Distinct lessons the student started in the web chat (its trial lessons). */
  async webLessons(user: string, q: Q = this.db): Promise<string[]> {
    const rows = await q
      .selectFrom('sessions')
      .select(['course', 'lesson_key'])
      .distinct()
      .where('user_id', '=', user)
      .where('channel', '=', 'web')
      .execute();
    return rows.map((r) => `${r.course}.${r.lesson_key}`);
  }

  /**
   * Creates a session with its event in the outbox, one statement: `event` gets the session's id,
   * and its data.at is set to the session's start as the database records it (ISO, UTC, ms).
   */
  async createWithEvent(q: Q, v: NewSession, subject: string, event: (id: string) => unknown): Promise<Session> {
    const id = randomUUID();
    const { rows } = await sql<Session>`with s as (
        insert into sessions (id, run_id, user_id, course, lesson_key, space, organization, channel, release, signals)
        values (${id}, ${v.run}, ${v.user}, ${v.course}, ${v.lessonKey}, ${v.space}, ${v.organization}, ${v.channel},
          ${v.release}, ${JSON.stringify(v.signals)}::jsonb)
        returning ${sql.join(SESSION_COLUMNS.map((c) => sql.ref(c)))}),
      e as (
        insert into outbox (subject, payload)
        select ${subject}, jsonb_set(${JSON.stringify(event(id))}::jsonb, '{data,at}',
          to_jsonb(to_char(s.started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
        from s returning 1)
      select s.*, (select count(*) from e) as notified from s`.execute(q);
    const { notified: _, ...session } = rows[0] as Session & { notified: unknown };
    return session;
  }

  /** Records activity (and optionally signals said) on a session. */
  async touch(q: Q, id: string, signals?: string[]) {
    await q
      .updateTable('sessions')
      .set(
        signals
          ? { last_activity_at: sql<string>`now()`, signals: JSON.stringify(signals) }
          : { last_activity_at: sql<string>`now()` },
      )
      .where('id', '=', id)
      .execute();
  }

  async setStatus(q: Q, id: string, status: Exclude<SessionStatus, 'open'>) {
    await q
      .updateTable('sessions')
      .set({ status, closed_at: sql<string>`now()`, last_activity_at: sql<string>`now()` })
      .where('id', '=', id)
      .execute();
  }
}
