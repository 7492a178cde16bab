import { events, mark_goal, start_lesson } from '@studium/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.ts';

// mark_goal's write is one statement, the function mark_goal_write (migrations/0002), decided on a
// read made before it; its events are committed without NOTIFY and this replica's relay is woken
// in-process. The relay's poll is set to ten minutes here, so only that wake-up can publish them.
let h: Harness;
beforeAll(async () => {
  h = await startHarness('lessons-markwrite', { OUTBOX_POLL_MS: '600000' });
});
afterAll(async () => {
  await h?.close();
});

const GOAL_MARKED = events['lessons.goal_marked'].subject;
const LESSON_COVERED = events['lessons.lesson_covered'].subject;

/** What one run's write can change: its marks, its row, its session's row and its events. */
async function snapshot(runId: string, sessionId: string) {
  const marks = await h.lessons.db.selectFrom('goal_marks').selectAll().where('run_id', '=', runId).execute();
  const run = await h.lessons.db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
  const session = await h.lessons.db
    .selectFrom('sessions')
    .selectAll()
    .where('id', '=', sessionId)
    .executeTakeFirstOrThrow();
  const { rows } = await h.lessons.database.pool.query('select count(*)::int as n from outbox');
  return { marks, run, session, outbox: rows[0].n as number };
}

describe('mark_goal: one write statement after one read', () => {
  it("publishes its events at once without waiting for the relay's poll, `at` being the mark's time", async () => {
    const p = await h.student('kick@t');
    const s = await h.must(start_lesson, p, {});
    const seen: Array<{ subject: string; data: Record<string, unknown> }> = [];
    // Read as the operator's CLI may (a service reads only the events its consumers take).
    const sub = (await h.env.as('operator')).subscribe(`${h.env.prefix}.evt.lessons.>`, {
      callback: (_err, msg) => {
        const envelope = msg.json<{ type: string; data: Record<string, unknown> }>();
        if (envelope.data.session === s.session) seen.push({ subject: envelope.type, data: envelope.data });
      },
    });
    try {
      for (const goal of ['term:T1', 'misconception:M1']) {
        await h.must(mark_goal, p, { session: s.session, goal, status: 'done', evidence: `Показал ${goal}` });
      }
      const last = await h.must(mark_goal, p, {
        session: s.session,
        goal: 'execution:E1',
        status: 'planned',
        evidence: 'Опишет случай',
      });
      expect(last.lesson).toBe('covered');
      const deadline = Date.now() + 3000;
      while (seen.filter((e) => e.subject !== events['lessons.session_started'].subject).length < 3) {
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      sub.unsubscribe();
    }
    // One event per mark: the one that covers the lesson says so (no lesson_covered any more).
    const mine = seen.filter((e) => e.subject === GOAL_MARKED || e.subject === LESSON_COVERED);
    expect(mine.map((e) => [e.subject, e.data.goal, e.data.lesson_covered])).toEqual([
      [GOAL_MARKED, 'term:T1', false],
      [GOAL_MARKED, 'misconception:M1', false],
      [GOAL_MARKED, 'execution:E1', true],
    ]);
    for (const e of mine) expect(events['lessons.goal_marked'].payload.safeParse(e.data).success).toBe(true);
    const session = await h.lessons.db
      .selectFrom('sessions')
      .select(['run_id', 'last_activity_at'])
      .where('id', '=', s.session)
      .executeTakeFirstOrThrow();
    const marks = await h.lessons.db
      .selectFrom('goal_marks')
      .select(['goal', 'marked_at'])
      .where('run_id', '=', session.run_id)
      .execute();
    const markedAt = new Map(marks.map((m) => [m.goal, m.marked_at]));
    for (const e of mine.filter((x) => x.subject === GOAL_MARKED)) {
      expect(e.data.at).toBe(markedAt.get(e.data.goal as string));
    }
    const run = await h.lessons.db
      .selectFrom('runs')
      .select(['status', 'started_at', 'covered_at'])
      .where('id', '=', session.run_id)
      .executeTakeFirstOrThrow();
    expect(run).toMatchObject({
      status: 'covered',
      started_at: markedAt.get('term:T1'),
      covered_at: markedAt.get('execution:E1'),
    });
    expect(mine[2]?.data.at).toBe(markedAt.get('execution:E1'));
    expect(session.last_activity_at >= (markedAt.get('execution:E1') as string)).toBe(true);
  });

  it('a write decided on a state that moved (marks, run status, active release) is stale, changes nothing and returns the current state', async () => {
    const p = await h.student('stale@t');
    const s = await h.must(start_lesson, p, {});
    await h.must(mark_goal, p, { session: s.session, goal: 'term:T1', status: 'done', evidence: 'Назвал пример' });
    const { run_id: runId } = await h.lessons.db
      .selectFrom('sessions')
      .select('run_id')
      .where('id', '=', s.session)
      .executeTakeFirstOrThrow();
    const { release } = await h.lessons.db
      .selectFrom('active_releases')
      .select('release')
      .where('course', '=', h.basics.course)
      .executeTakeFirstOrThrow();
    const write = (seenStatus: string, seenMarks: Record<string, string>, seenRelease: string | null) =>
      h.lessons.database.pool.query(
        `select outcome, run_status, marks, active_release
          from mark_goal_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          runId,
          s.session,
          h.basics.course,
          'misconception:M1',
          'spot-negotiations',
          'done',
          'Сказал про торг',
          'Дальше: кейс',
          seenStatus,
          JSON.stringify(seenMarks),
          seenRelease,
          'in_progress',
          JSON.stringify([{ subject: GOAL_MARKED, payload: { id: 'x', type: GOAL_MARKED, data: {} } }]),
        ],
      );
    const before = await snapshot(runId, s.session);
    // Each decision misses what happened in between: a mark, its status, the run's status, a release.
    for (const [status, marks, rel] of [
      ['in_progress', {}, release],
      ['in_progress', { 'term:T1': 'planned' }, release],
      ['in_progress', { 'term:T1': 'done', 'execution:E1': 'done' }, release],
      ['not_started', { 'term:T1': 'done' }, release],
      ['in_progress', { 'term:T1': 'done' }, 'an-older-release'],
      ['in_progress', { 'term:T1': 'done' }, null],
    ] as const) {
      const { rows } = await write(status, marks, rel);
      expect(rows[0], JSON.stringify([status, marks, rel])).toMatchObject({
        outcome: 'stale',
        run_status: 'in_progress',
        active_release: release,
      });
      expect(rows[0].marks.map((m: unknown[]) => [m[0], m[2]])).toEqual([['term:T1', 'done']]);
    }
    expect(await snapshot(runId, s.session)).toEqual(before);
    // The same write decided on what the run has lands.
    const { rows } = await write('in_progress', { 'term:T1': 'done' }, release);
    expect(rows[0].outcome).toBe('ok');
    const after = await snapshot(runId, s.session);
    expect(after.marks.map((m) => m.goal).sort()).toEqual(['misconception:M1', 'term:T1']);
    expect(after.run.resume_from).toBe('Дальше: кейс');
    expect(after.outbox).toBe(before.outbox + 1);
  });

  it('a context kept from the last write that another replica made old is decided again on the current state', async () => {
    const p = await h.student('kept@t');
    const s = await h.must(start_lesson, p, {});
    await h.must(mark_goal, p, { session: s.session, goal: 'term:T1', status: 'done', evidence: 'Назвал пример' });
    // Another replica marks the second item of the objective (this one's kept context lacks it).
    const { run_id: runId } = await h.lessons.db
      .selectFrom('sessions')
      .select('run_id')
      .where('id', '=', s.session)
      .executeTakeFirstOrThrow();
    await h.lessons.database.pool.query(
      `insert into goal_marks (run_id, goal, objective, status, evidence, session_id)
        values ($1, 'misconception:M1', 'spot-negotiations', 'done', 'с другой реплики', $2)`,
      [runId, s.session],
    );
    const r = await h.must(mark_goal, p, {
      session: s.session,
      goal: 'execution:E1',
      status: 'planned',
      evidence: 'Опишет случай',
    });
    // Decided on both marks: the lesson is covered and nothing is left open.
    expect(r).toMatchObject({ lesson: 'covered', next_step: { kind: 'complete' } });
    const run = await h.lessons.db
      .selectFrom('runs')
      .select('status')
      .where('id', '=', runId)
      .executeTakeFirstOrThrow();
    expect(run.status).toBe('covered');
    // The covering mark says so in its one event, decided on the current marks.
    const covered = await h.lessons.database.pool.query(
      `select count(*)::int as n from outbox where subject = $1 and payload -> 'data' ->> 'session' = $2
        and (payload -> 'data' ->> 'lesson_covered')::boolean`,
      [GOAL_MARKED, s.session],
    );
    expect(covered.rows[0].n).toBe(1);
  });

  it('a run another transaction holds is busy at once, and nothing is written', async () => {
    const p = await h.student('held@t');
    const s = await h.must(start_lesson, p, {});
    const { run_id: runId } = await h.lessons.db
      .selectFrom('sessions')
      .select('run_id')
      .where('id', '=', s.session)
      .executeTakeFirstOrThrow();
    const before = await snapshot(runId, s.session);
    const holder = await h.lessons.database.pool.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from runs where id = $1 for update', [runId]);
      const started = Date.now();
      const r = await h.call(mark_goal, p, { session: s.session, goal: 'term:T1', status: 'done', evidence: 'x' });
      expect(r).toMatchObject({ ok: false, error: { code: 'busy' } });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await holder.query('rollback');
      holder.release();
    }
    expect(await snapshot(runId, s.session)).toEqual(before);
  });
});
