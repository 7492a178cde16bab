import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { ReportingDb } from '../db.ts';
import { currentGeneration } from '../generation.ts';

/** An organization as reports show it. */
export interface OrgRow {
  organization: string;
  title: string;
  suspended: boolean;
  role: 'manager' | 'member';
}

/** One person × course row of org_report. */
export interface OrgReportRow {
  user: string;
  full_name: string;
  organization: string;
  course: string;
  course_title: string;
  status: 'not_started' | 'in_progress' | 'completed';
  lessons_passed: number;
  lessons_total: number;
  deadline: string | null;
  mandatory: boolean;
  overdue: boolean;
  last_activity: string | null;
  blocks_total: number;
  blocks_filled: number;
}

/** Counts over every row of the report (before the status filter and paging). */
export interface OrgReportSummary {
  rows: number;
  people: number;
  not_started: number;
  in_progress: number;
  completed: number;
  overdue: number;
  mandatory_not_started: number;
  /** Rows that match the status filter (what paging walks through). */
  matching: number;
}

export interface OrgReportQuery {
  orgs: string[];
  course?: string;
  status?: OrgReportRow['status'];
  offset: number;
  /** null: every row (the CSV export). */
  limit: number | null;
}

/** Reads of the current read-model generation for the three tools and the exports. */
export class ReportRepository {
  constructor(private readonly db: Kysely<ReportingDb>) {}

  /** Runs reads against one generation: a rebuild may swap it between calls, never within one. */
  async read<T>(fn: (g: (table: string) => RawBuilder<unknown>) => Promise<T>): Promise<T> {
    const generation = await currentGeneration(this.db);
    return fn((table) => sql.table(`${generation}.${table}`));
  }

  /** The user's current organizations (memberships with a role) with their suspension. */
  orgsOf(g: (t: string) => RawBuilder<unknown>, user: string): Promise<OrgRow[]> {
    return sql<OrgRow>`select m.org as organization, coalesce(o.title, m.org) as title,
        coalesce(o.suspended, false) as suspended, m.role
      from ${g('memberships')} m left join ${g('organizations')} o on o.name = m.org
      where m.user_id = ${user} and m.role is not null order by m.org`
      .execute(this.db)
      .then((r) => r.rows);
  }

  async fullName(g: (t: string) => RawBuilder<unknown>, user: string): Promise<string | null> {
    const r = await sql<{ full_name: string }>`select full_name from ${g('users')} where id = ${user}`.execute(this.db);
    return r.rows[0]?.full_name ?? null;
  }

  /** The report's rows and its summary; rows in a stable order (organization, name, login, course title, course). */
  async orgReport(
    g: (t: string) => RawBuilder<unknown>,
    q: OrgReportQuery,
  ): Promise<{ rows: OrgReportRow[]; summary: OrgReportSummary }> {
    if (q.orgs.length === 0) return { rows: [], summary: emptySummary() };
    const courseFilter = q.course ? sql`and e.course = ${q.course}` : sql``;
    // The status of a row: completed, in progress (any activity or a passed lesson), or not started.
    const status = sql`case when coalesce(p.completed, false) then 'completed'
      when p.last_activity is not null or coalesce(p.lessons_passed, 0) > 0 then 'in_progress' else 'not_started' end`;
    const overdue = sql`(e.deadline is not null and e.deadline < now() and not coalesce(p.completed, false))`;
    // Rows of current members only: someone who left drops out of the report.
    const scope = sql`from ${g('enrollments')} e
      join ${g('memberships')} m on m.org = e.organization and m.user_id = e.user_id and m.role is not null
      left join ${g('progress')} p on p.user_id = e.user_id and p.course = e.course
      where e.organization = any(${q.orgs}::text[]) ${courseFilter}`;
    const summary = await sql<OrgReportSummary>`with r as (
        select e.user_id, ${status} as status, ${overdue} as overdue, coalesce(e.mandatory, false) as mandatory ${scope}
      ) select count(*)::int as rows,
        count(distinct user_id)::int as people,
        count(*) filter (where status = 'not_started')::int as not_started,
        count(*) filter (where status = 'in_progress')::int as in_progress,
        count(*) filter (where status = 'completed')::int as completed,
        count(*) filter (where overdue)::int as overdue,
        count(*) filter (where mandatory and status = 'not_started')::int as mandatory_not_started,
        count(*) filter (where ${q.status ?? null}::text is null or status = ${q.status ?? null})::int as matching
      from r`.execute(this.db);
    const order = sql`organization, full_name, "user", course_title, course`;
    // Documents are summed for the page's rows only, after the order and the limit.
    const rows = await sql<OrgReportRow>`with r as (
        select e.user_id as "user", coalesce(u.full_name, e.user_id) as full_name, e.organization, e.space, e.course,
          coalesce(c.title, e.course) as course_title, ${status} as status,
          coalesce(p.lessons_passed, 0) as lessons_passed,
          coalesce(nullif(p.lessons_total, 0), c.lessons_total, 0) as lessons_total,
          e.deadline, coalesce(e.mandatory, false) as mandatory, ${overdue} as overdue, p.last_activity,
          (c.document ->> 'blocks_total')::int as card_blocks
        from ${g('enrollments')} e
        join ${g('memberships')} m on m.org = e.organization and m.user_id = e.user_id and m.role is not null
        left join ${g('users')} u on u.id = e.user_id
        left join ${g('courses')} c on c.course = e.course
        left join ${g('progress')} p on p.user_id = e.user_id and p.course = e.course
        where e.organization = any(${q.orgs}::text[]) ${courseFilter}
      ), page as (
        select * from r ${q.status ? sql`where status = ${q.status}` : sql``}
        order by ${order} ${q.limit === null ? sql`` : sql`limit ${q.limit}`} offset ${q.offset}
      )
      -- Before the first cell there is no document row: the course's document counts «0 of N»,
      -- so a course with a document never reads as one without (0 of 0).
      select page.*, coalesce(d.blocks_total, page.card_blocks, 0)::int as blocks_total,
        coalesce(d.blocks_filled, 0)::int as blocks_filled
      from page left join lateral (
        select sum(blocks_total) as blocks_total, sum(blocks_filled) as blocks_filled from ${g('documents')} d
        where d.user_id = page."user" and d.course = page.course and d.space = page.space
      ) d on true
      order by ${order}`.execute(this.db);
    return { rows: rows.rows, summary: summary.rows[0] ?? emptySummary() };
  }

  /**
   * The user's enrollments in the given spaces, with card, progress and the course's documents in
   * `documentSpace` (the space the summary is about: personal shows the personal document even
   * where the enrollment row is an organization's). The course's document counts «0 of N» before
   * the first cell.
   */
  myEnrollments(g: (t: string) => RawBuilder<unknown>, user: string, spaces: string[], documentSpace?: string) {
    // Without documentSpace: each enrollment's own space (student_detail, one row per organization).
    const docSpace = documentSpace === undefined ? sql`e.space` : sql`${documentSpace}::text`;
    return sql<{
      course: string;
      title: string;
      space: string;
      organization: string | null;
      self_enrolled: boolean;
      mandatory: boolean | null;
      deadline: string | null;
      lessons_passed: number;
      lessons_total: number;
      completed: boolean;
      lessons_failed: number;
      finished: boolean;
      last_activity: string | null;
      overdue: boolean;
      documents: Array<{ artifact: string; title: string; blocks_total: number; blocks_filled: number }>;
    }>`select e.course, coalesce(c.title, e.course) as title, e.space, e.organization, e.self_enrolled, e.mandatory,
        e.deadline, coalesce(p.lessons_passed, 0) as lessons_passed,
        coalesce(nullif(p.lessons_total, 0), c.lessons_total, 0) as lessons_total,
        coalesce(p.completed, false) as completed, coalesce(p.lessons_failed, 0) as lessons_failed,
        coalesce(p.finished or p.completed, false) as finished, p.last_activity,
        (e.deadline is not null and e.deadline < now() and not coalesce(p.completed, false)) as overdue,
        coalesce((select jsonb_agg(x.doc order by x.doc ->> 'artifact') from (
            select jsonb_build_object('artifact', d.artifact, 'title', d.title,
              'blocks_total', d.blocks_total, 'blocks_filled', d.blocks_filled) as doc
            from ${g('documents')} d
            where d.user_id = e.user_id and d.course = e.course and d.space = ${docSpace}
            union all
            select jsonb_build_object('artifact', c.document ->> 'key', 'title', c.document ->> 'title',
              'blocks_total', (c.document ->> 'blocks_total')::int, 'blocks_filled', 0)
            where c.document is not null and not exists (select 1 from ${g('documents')} d
              where d.user_id = e.user_id and d.course = e.course and d.space = ${docSpace}
                and d.artifact = c.document ->> 'key')
          ) x), '[]') as documents
      from ${g('enrollments')} e
      left join ${g('courses')} c on c.course = e.course
      left join ${g('progress')} p on p.user_id = e.user_id and p.course = e.course
      where e.user_id = ${user} and e.space = any(${spaces}::text[])
      order by e.enrolled_at, e.course, e.space`
      .execute(this.db)
      .then((r) => r.rows);
  }

  /** Sessions of a user, newest first: in the given spaces, or of the given courses. */
  sessions(
    g: (t: string) => RawBuilder<unknown>,
    user: string,
    where: { spaces?: string[]; courses?: string[] },
    limit: number,
  ) {
    return sql<{
      session: string;
      course: string;
      lesson: string;
      lesson_key: string;
      lesson_title: string | null;
      space: string;
      status: string;
      started_at: string;
      objectives: Array<{ objective: string; title: string; status: string }>;
    }>`select s.session, s.course, s.lesson, s.lesson_key, s.space, s.status, s.started_at,
        (select l->>'title' from ${g('courses')} c, jsonb_array_elements(c.lessons) l
          where c.course = s.course and l->>'id' = s.lesson limit 1) as lesson_title,
        coalesce((select jsonb_agg(jsonb_build_object('objective', o.value->>'key', 'title', o.value->>'text',
            'status', coalesce(os.status, 'not_started')) order by o.ordinality)
          from jsonb_array_elements(s.objectives) with ordinality o
          left join ${g('objective_statuses')} os on os.session = s.session and os.objective = o.value->>'key'), '[]') as objectives
      from ${g('sessions')} s
      where s.user_id = ${user}
        ${where.spaces ? sql`and s.space = any(${where.spaces}::text[])` : sql``}
        ${where.courses ? sql`and s.course = any(${where.courses}::text[])` : sql``}
      order by s.started_at desc, s.session limit ${limit}`
      .execute(this.db)
      .then((r) => r.rows);
  }

  /** Quiz attempts of a user in the given courses, in lesson and attempt order. */
  attempts(g: (t: string) => RawBuilder<unknown>, user: string, courses: string[]) {
    return sql<{
      attempt: string;
      course: string;
      lesson: string;
      lesson_title: string | null;
      number: number;
      status: string;
      score: number;
      passed: boolean;
      finished_at: string;
    }>`select a.attempt, a.course, a.lesson, a.number, a.status, a.score, a.passed, a.finished_at,
        (select l->>'title' from ${g('courses')} c, jsonb_array_elements(c.lessons) l
          where c.course = a.course and l->>'id' = a.lesson limit 1) as lesson_title
      from ${g('attempts')} a where a.user_id = ${user} and a.course = any(${courses}::text[])
      order by a.course, a.lesson, a.finished_at, a.number, a.attempt`
      .execute(this.db)
      .then((r) => r.rows);
  }

  /** Homework statuses of a user in the given courses and spaces (status only, never the answer). */
  homework(g: (t: string) => RawBuilder<unknown>, user: string, courses: string[], spaces: string[]) {
    return sql<{
      course: string;
      lesson: string;
      lesson_title: string | null;
      space: string;
      status: string;
      version: number | null;
      due_at: string | null;
      updated_at: string;
    }>`select h.course, h.lesson, h.space, h.status, h.version, h.due_at, h.at as updated_at,
        (select l->>'title' from ${g('courses')} c, jsonb_array_elements(c.lessons) l
          where c.course = h.course and l->>'id' = h.lesson limit 1) as lesson_title
      from ${g('homework')} h
      where h.user_id = ${user} and h.course = any(${courses}::text[]) and h.space = any(${spaces}::text[])
      order by h.course, h.lesson, h.space`
      .execute(this.db)
      .then((r) => r.rows);
  }
}

function emptySummary(): OrgReportSummary {
  return {
    rows: 0,
    people: 0,
    not_started: 0,
    in_progress: 0,
    completed: 0,
    overdue: 0,
    mandatory_not_started: 0,
    matching: 0,
  };
}
