import { randomUUID } from 'node:crypto';
import { type EventKey, events } from '@studium/contracts';
import { type Database, type EventEnvelope, openDatabase } from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportingDb } from '../src/db.ts';
import { createGenerationSchema } from '../src/generation.ts';
import { applyEvent, applyEvents } from '../src/projector.ts';
import { ProjectionRepository } from '../src/repositories/projection.repository.ts';
import { lessonEvents } from './support/reporting.ts';

// Issue 32.4: a lesson-loop call emits one event where it emitted two. The stream holds both
// shapes (older events stay until retention, and a rebuild replays them), so the read models must
// come out the same whichever shape each call was written in: a covering mark as goal_marked then
// lesson_covered, or one goal_marked with `lesson_covered`; a verdict that passed or failed the
// lesson as quiz_attempt_finished then lesson_passed/lesson_failed, or one of those carrying it
// (`quiz_attempt`). Same calls, random order and times, one by one and in batches.
let env: TestEnv;
let database: Database<ReportingDb>;
const OLD = 'reporting_g911';
const NEW = 'reporting_g912';
const NEW_BATCHED = 'reporting_g913';
// Every table but `processed` (the envelope ids differ: one shape has more events).
const TABLES: Record<string, string> = {
  progress: 'user_id, course',
  sessions: 'session',
  objective_statuses: 'session, objective',
  attempts: 'attempt',
};

beforeAll(async () => {
  env = await createTestEnv('reporting-merged');
  database = openDatabase<ReportingDb>(env.databaseUrl, 'reporting', 3);
  for (const schema of [OLD, NEW, NEW_BATCHED]) await createGenerationSchema(database.pool, schema);
});

afterAll(async () => {
  await database?.close();
  await env?.cleanup();
});

const call = fc.record({
  kind: fc.constantFrom('start', 'mark', 'attempt', 'pass', 'fail'),
  user: fc.constantFrom('u1', 'u2'),
  session: fc.constantFrom('s1', 's2', 's3'),
  n: fc.integer({ min: 1, max: 2 }),
  second: fc.nat(5),
  covers: fc.boolean(),
  quiz: fc.boolean(),
  attempt: fc.constantFrom('a1', 'a2', 'a3', 'a4'),
  number: fc.integer({ min: 1, max: 3 }),
});
type Call = typeof call extends fc.Arbitrary<infer T> ? T : never;

const envelope = (key: EventKey, data: unknown, at: string): EventEnvelope => ({
  id: randomUUID(),
  type: events[key].subject,
  occurred_at: at,
  data,
});

/** What one call emitted: before issue 32.4 (`merged` false) and since. */
function emitted(c: Call, merged: boolean): EventEnvelope[] {
  const at = `2026-03-01T09:00:0${c.second}.000Z`;
  const e = lessonEvents(c.user, 'c1', 'acme');
  const verdict = (passed: boolean) => ({ attempt: c.attempt, number: c.number, score: passed ? 1 : 0, passed });
  const finished = (passed: boolean) =>
    envelope(
      'lessons.quiz_attempt_finished',
      { ...e.finished(c.n, c.session, c.attempt, c.number, 0, at), ...verdict(passed) },
      at,
    );
  switch (c.kind) {
    case 'start':
      return [envelope('lessons.session_started', e.started(c.n, c.session, at), at)];
    case 'mark': {
      const marked = e.marked(c.n, c.session, `l${c.n}-D1`, c.covers ? 'covered' : 'touched', at);
      if (merged) return [envelope('lessons.goal_marked', { ...marked, lesson_covered: c.covers }, at)];
      return [
        envelope('lessons.goal_marked', marked, at),
        ...(c.covers ? [envelope('lessons.lesson_covered', e.covered(c.n, c.session, at), at)] : []),
      ];
    }
    case 'attempt':
      // A verdict the lesson goes on after: quiz_attempt_finished in both shapes.
      return [finished(c.covers)];
    case 'pass': {
      // complete_lesson (no quiz) emits the same event in both shapes.
      const passed = e.passed(c.n, c.session, at, c.n, 2);
      if (!c.quiz) return [envelope('lessons.lesson_passed', { ...passed, via: 'complete' }, at)];
      if (merged) return [envelope('lessons.lesson_passed', { ...passed, quiz_attempt: verdict(true) }, at)];
      return [finished(true), envelope('lessons.lesson_passed', passed, at)];
    }
    case 'fail': {
      const failed = {
        ...e.passed(c.n, c.session, at, 0, 2),
        attempts_used: c.number,
        passed_lessons: [],
        failed_lessons: [`l${c.n}`],
        course_finished: c.covers,
      };
      if (merged) return [envelope('lessons.lesson_failed', { ...failed, quiz_attempt: verdict(false) }, at)];
      return [finished(false), envelope('lessons.lesson_failed', failed, at)];
    }
  }
}

async function contents(schema: string) {
  const out: Record<string, unknown[]> = {};
  for (const [table, key] of Object.entries(TABLES)) {
    out[table] = (await sql.raw(`select * from "${schema}"."${table}" order by ${key}`).execute(database.db)).rows;
  }
  return out;
}

async function clear(schema: string) {
  await sql
    .raw(`truncate ${[...Object.keys(TABLES), 'processed'].map((t) => `"${schema}"."${t}"`).join(', ')}`)
    .execute(database.db);
}

async function oneByOne(schema: string, list: EventEnvelope[]) {
  await database.db.transaction().execute(async (trx) => {
    const repo = new ProjectionRepository(trx, schema);
    for (const e of list) await applyEvent(repo, e, env.log);
  });
}

async function batched(schema: string, list: EventEnvelope[], size: number) {
  for (let at = 0; at < list.length; at += size) {
    await database.db.transaction().execute(async (trx) => {
      await applyEvents(new ProjectionRepository(trx, schema), list.slice(at, at + size), env.log);
    });
  }
}

describe('one event per call, or the two it replaces', () => {
  it('give the same read models, applied one by one or in batches', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(call, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 30 }),
        async (calls, size) => {
          for (const schema of [OLD, NEW, NEW_BATCHED]) await clear(schema);
          const before = calls.flatMap((c) => emitted(c, false));
          const since = calls.flatMap((c) => emitted(c, true));
          await oneByOne(OLD, before);
          await oneByOne(NEW, since);
          await batched(NEW_BATCHED, since, size);
          const reference = await contents(OLD);
          expect(await contents(NEW)).toEqual(reference);
          expect(await contents(NEW_BATCHED)).toEqual(reference);
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 60) },
    );
  }, 120_000);

  it('a merged event carries what the pair wrote: the covered session, the verdict as the attempt', async () => {
    await clear(NEW);
    const base = { user: 'u1', session: 's1', n: 1, second: 1, attempt: 'a1', number: 2 } as const;
    await oneByOne(NEW, [
      ...emitted({ ...base, kind: 'mark', covers: true, quiz: false }, true),
      ...emitted({ ...base, kind: 'pass', covers: false, quiz: true, second: 2 }, true),
    ]);
    const got = await contents(NEW);
    expect(got.attempts).toEqual([
      expect.objectContaining({ attempt: 'a1', session: 's1', number: 2, status: 'Passed', score: 1, passed: true }),
    ]);
    expect(got.sessions).toEqual([expect.objectContaining({ session: 's1', status: 'passed' })]);
    await clear(NEW);
    await oneByOne(NEW, emitted({ ...base, kind: 'mark', covers: true, quiz: false }, true));
    expect((await contents(NEW)).sessions).toEqual([expect.objectContaining({ session: 's1', status: 'covered' })]);
  });
});
