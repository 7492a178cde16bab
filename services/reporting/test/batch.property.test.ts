import { randomUUID } from 'node:crypto';
import { events } from '@studium/contracts';
import { type Database, type EventEnvelope, openDatabase } from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportingDb } from '../src/db.ts';
import { createGenerationSchema } from '../src/generation.ts';
import { applyEvent, applyEvents } from '../src/projector.ts';
import { ProjectionRepository } from '../src/repositories/projection.repository.ts';
import { courseCard, lessonEvents } from './support/reporting.ts';

// The set-based batch (one statement per kind of write) must leave the read models exactly as
// applying the same events one after another does, for any events, any order, any cut into
// batches, redeliveries included, and over rows that already exist. Few keys and few distinct
// times, so that batches hit the same rows and ties of `at` are common.
let env: TestEnv;
let database: Database<ReportingDb>;
const ONE = 'reporting_g901';
const SET = 'reporting_g902';
const TABLES: Record<string, string> = {
  processed: 'msg_id',
  users: 'id',
  organizations: 'name',
  memberships: 'org, user_id',
  courses: 'course',
  enrollments: 'user_id, course, space',
  progress: 'user_id, course',
  sessions: 'session',
  objective_statuses: 'session, objective',
  attempts: 'attempt',
  homework: 'user_id, lesson, space',
  documents: 'user_id, course, space, artifact',
};

beforeAll(async () => {
  env = await createTestEnv('reporting-batch');
  database = openDatabase<ReportingDb>(env.databaseUrl, 'reporting', 3);
  await createGenerationSchema(database.pool, ONE);
  await createGenerationSchema(database.pool, SET);
});

afterAll(async () => {
  await database?.close();
  await env?.cleanup();
});

/** A time among a few seconds; `style` writes the same instant differently or a microsecond later. */
function time(second: number, style: number): string {
  if (style === 1) return `2026-02-01T12:00:0${second}+03:00`;
  if (style === 2) return `2026-02-01T09:00:0${second}.000001Z`;
  return `2026-02-01T09:00:0${second}.000Z`;
}

const spec = fc.record({
  kind: fc.nat(16),
  user: fc.constantFrom('u1', 'u2'),
  course: fc.constantFrom('c1', 'c2'),
  space: fc.constantFrom('acme', 'personal'),
  session: fc.constantFrom('s1', 's2', 's3'),
  n: fc.integer({ min: 1, max: 2 }),
  second: fc.nat(4),
  style: fc.nat(2),
  flag: fc.boolean(),
  pick: fc.nat(2),
});
type Spec = typeof spec extends fc.Arbitrary<infer T> ? T : never;

/** An event from a spec, as its producer emits it. */
function event(s: Spec): EventEnvelope {
  const at = time(s.second, s.style);
  const e = lessonEvents(s.user, s.course, s.space);
  const org = s.space === 'personal' ? null : s.space;
  const pair = (type: keyof typeof events, data: unknown): EventEnvelope => ({
    id: randomUUID(),
    type: events[type].subject,
    occurred_at: at,
    data,
  });
  const titles = ['Первый', 'Второй', 'Третий'];
  switch (s.kind) {
    case 0:
      return pair(s.flag ? 'enrollment.user_created' : 'enrollment.user_updated', {
        user: s.user,
        full_name: titles[s.pick],
        at,
      });
    case 1:
      return pair('enrollment.organization_changed', {
        organization: 'acme',
        title: titles[s.pick],
        suspended: s.flag,
        at,
      });
    case 2:
      return pair('enrollment.membership_changed', {
        organization: 'acme',
        user: s.user,
        role: [null, 'manager', 'member'][s.pick],
        at,
      });
    case 3:
      return pair('courses.course_card_changed', {
        ...courseCard(s.course, s.n + s.pick, s.pick + 1),
        title: `${titles[s.pick]} ${s.second}`,
        at,
      });
    case 4:
      return pair('enrollment.enrolled', {
        user: s.user,
        course: s.course,
        space: s.space,
        organization: s.flag ? org : 'other',
        self_enrolled: s.flag,
        at,
      });
    case 5:
      return pair('enrollment.assignment_changed', {
        user: s.user,
        course: s.course,
        space: s.space,
        organization: s.flag ? 'acme' : 'other',
        mandatory: s.pick > 0,
        deadline: s.pick === 2 ? null : time(s.pick, 0),
        at,
      });
    case 6: {
      const started = e.started(s.n, s.session, at);
      return pair('lessons.session_started', {
        ...started,
        objectives: started.objectives.slice(0, s.pick + 1).map((o) => ({ ...o, text: `${o.text} ${s.second}` })),
      });
    }
    case 7:
      // A mark that covered the lesson says so (lesson_covered) since issue 32.4.
      return pair('lessons.goal_marked', {
        ...e.marked(s.n, s.session, `o${s.pick}`, s.flag ? 'covered' : 'touched', at),
        ...(s.pick === 2 ? { lesson_covered: s.flag } : {}),
      });
    case 8:
      return pair('lessons.lesson_covered', e.covered(s.n, s.session, at));
    case 9:
      // With the verdict that passed it (issue 32.4), or without (complete_lesson, older events).
      return pair('lessons.lesson_passed', {
        ...e.passed(s.n, s.session, at, s.pick + 1, 3),
        ...(s.flag ? { quiz_attempt: { attempt: `a${s.pick}`, number: s.n, score: 0.9, passed: true } } : {}),
      });
    case 10:
      return pair(
        'lessons.quiz_attempt_finished',
        e.finished(s.n, s.session, `a${s.pick}`, s.n, s.flag ? 0.9 : 0.2, at),
      );
    case 11:
      return pair('lessons.quiz_attempt_cancelled', e.cancelled(s.n, s.session, `a${s.pick}`, s.n, at));
    case 12:
    case 13: {
      const status = (['Assigned', 'Submitted', 'Returned'] as const)[s.pick];
      return pair(s.kind === 12 ? 'homework.submitted' : 'homework.returned', e.homework(s.n, status, s.pick, at));
    }
    case 14:
      return pair('homework.document_updated', e.document(`d${s.n}`, 5, s.pick + s.second, at));
    case 15:
      return pair('lessons.lesson_failed', {
        ...e.passed(s.n, s.session, at, s.pick, 3),
        attempts_used: 1,
        passed_lessons: [],
        failed_lessons: ['l1', 'l2'].slice(0, s.pick),
        course_finished: s.flag,
        ...(s.pick !== 1 ? { quiz_attempt: { attempt: `a${s.pick}`, number: s.n, score: 0.2, passed: false } } : {}),
      });
    default:
      // Not an event of the read models: ignored by both.
      return { id: randomUUID(), type: 'evt.elsewhere.happened', occurred_at: at, data: { ignored: true } };
  }
}

/** Every row of every table of a generation, in key order. */
async function contents(schema: string) {
  const out: Record<string, unknown[]> = {};
  for (const [table, key] of Object.entries(TABLES)) {
    const r = await sql.raw(`select * from "${schema}"."${table}" order by ${key}`).execute(database.db);
    out[table] = r.rows;
  }
  return out;
}

async function clear(schema: string) {
  await sql
    .raw(
      `truncate ${Object.keys(TABLES)
        .map((t) => `"${schema}"."${t}"`)
        .join(', ')}`,
    )
    .execute(database.db);
}

/** Applies events one by one, each with its own statements (the reference). */
async function oneByOne(schema: string, list: EventEnvelope[]) {
  await database.db.transaction().execute(async (trx) => {
    const repo = new ProjectionRepository(trx, schema);
    for (const e of list) await applyEvent(repo, e, env.log);
  });
}

/** Applies events set-based, cut into the given batch sizes (one transaction each). */
async function batched(schema: string, list: EventEnvelope[], cuts: number[]) {
  let at = 0;
  for (let i = 0; at < list.length; i++) {
    const size = cuts.length ? (cuts[i % cuts.length] as number) : list.length;
    const batch = list.slice(at, at + size);
    at += size;
    await database.db.transaction().execute(async (trx) => {
      await applyEvents(new ProjectionRepository(trx, schema), batch, env.log);
    });
  }
}

describe('set-based batches', () => {
  it('leave the read models exactly as one-by-one application does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(spec, { maxLength: 12 }),
        fc.array(spec, { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 4 }),
        fc.array(fc.nat(60), { maxLength: 6 }),
        async (before, specs, cuts, again) => {
          await clear(ONE);
          await clear(SET);
          // Rows that exist before the batches (applied one by one to both).
          const existing = before.map(event);
          await oneByOne(ONE, existing);
          await oneByOne(SET, existing);
          const list = specs.map(event);
          // Redeliveries: copies of earlier events (of this run or already applied) later in the stream.
          const pool = [...existing, ...list];
          for (const k of again) {
            const copy = pool[k % pool.length];
            if (copy) list.splice(k % (list.length + 1), 0, copy);
          }
          await oneByOne(ONE, list);
          await batched(SET, list, cuts);
          expect(await contents(SET)).toEqual(await contents(ONE));
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 60) },
    );
  }, 120_000);

  it('cuts a batch where two writers of one table do not commute (assignment before enrolment, status before start)', async () => {
    const base = {
      user: 'u1',
      course: 'c1',
      space: 'acme',
      session: 's1',
      n: 1,
      style: 0,
      flag: true,
      pick: 0,
    } as const;
    // An assignment at :01 then the enrolment at :04: the one-by-one result keeps enrolled_at :01
    // (the insert sets it, the enrolment only lowers it); a lesson covered at :01 then its start at
    // :04: started_at stays :01. Written by kind without the cut, both would be :04.
    const list = [
      event({ ...base, kind: 5, second: 1 }),
      event({ ...base, kind: 4, second: 4 }),
      event({ ...base, kind: 8, second: 1 }),
      event({ ...base, kind: 6, second: 4 }),
    ];
    await clear(ONE);
    await clear(SET);
    await oneByOne(ONE, list);
    await batched(SET, list, []);
    const set = await contents(SET);
    expect(set).toEqual(await contents(ONE));
    const first = new Date(time(1, 0)).getTime();
    const [enrollment] = (set.enrollments ?? []) as Array<{ enrolled_at: string }>;
    const [session] = (set.sessions ?? []) as Array<{ started_at: string }>;
    expect(Date.parse(enrollment?.enrolled_at ?? '')).toBe(first);
    expect(Date.parse(session?.started_at ?? '')).toBe(first);
  });

  it('a redelivered batch changes nothing and applies no event', async () => {
    await clear(SET);
    const list = Array.from({ length: 30 }, (_, i) =>
      event({
        kind: i % 15,
        user: i % 2 ? 'u1' : 'u2',
        course: 'c1',
        space: 'acme',
        session: (['s1', 's2', 's3'] as const)[i % 3] as 's1',
        n: 1,
        second: i % 5,
        style: 0,
        flag: i % 2 === 0,
        pick: i % 3,
      }),
    );
    await batched(SET, list, []);
    const first = await contents(SET);
    expect(first.processed?.length).toBeGreaterThan(20);
    const applied = await database.db.transaction().execute(async (trx) => {
      return applyEvents(new ProjectionRepository(trx, SET), list, env.log);
    });
    expect(applied).toEqual([]);
    expect(await contents(SET)).toEqual(first);
  });

  it('a batch with an event the database refuses fails as a whole and writes nothing', async () => {
    await clear(SET);
    const good = event({
      kind: 0,
      user: 'u1',
      course: 'c1',
      space: 'acme',
      session: 's1',
      n: 1,
      second: 1,
      style: 0,
      flag: true,
      pick: 0,
    });
    const poison: EventEnvelope = {
      ...good,
      id: randomUUID(),
      data: { user: 'u2', full_name: 'Нуль\u0000байт', at: time(1, 0) },
    };
    await expect(
      database.db.transaction().execute(async (trx) => {
        await applyEvents(new ProjectionRepository(trx, SET), [good, poison], env.log);
      }),
    ).rejects.toThrow();
    const after = await contents(SET);
    expect(after.processed).toEqual([]);
    expect(after.users).toEqual([]);
  });
});
