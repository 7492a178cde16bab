import { complete_lesson, lessonId, mark_goal, resetProgress, sessionProgress, start_lesson } from '@studium/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.ts';

// lessons.session_progress, what homework asks for update_artifact's mid-session progress: the
// open session of the course in the space, with the objectives' statuses start_lesson shows.
let h: Harness;
beforeAll(async () => {
  h = await startHarness('lessons-progress');
});
afterAll(async () => {
  await h?.close();
});

const NONE = { ok: true, data: { session: null, lesson: null, objectives: [] } };
const progress = (user: string, space = 'personal') =>
  h.env.bus.request(
    sessionProgress,
    { user, full_name: user, roles: ['Student'], scope: 'write', space: 'personal' },
    { user, course: h.basics.course, space },
  );

describe('lessons.session_progress', () => {
  it("answers only inside the student's own call: 401 without a signed principal, 403 for another user", async () => {
    const args = { user: 'progress-x@t', course: h.basics.course, space: 'personal' };
    await expect(h.env.bus.request(sessionProgress, null, args)).rejects.toMatchObject({ status: 401 });
    const other = {
      user: 'other@t',
      full_name: 'Other',
      roles: ['Student'],
      scope: 'write' as const,
      space: 'personal',
    };
    await expect(h.env.bus.request(sessionProgress, other, args)).rejects.toMatchObject({ status: 403 });
  });

  it('answers no session before start_lesson, then the objectives with the statuses of lesson_map', async () => {
    const p = await h.student('progress@t');
    expect(await progress(p.user)).toEqual(NONE);
    const s = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'why-prepare') });
    const fresh = await progress(p.user);
    expect(fresh).toEqual({
      ok: true,
      data: {
        session: s.session,
        lesson: lessonId(h.basics.course, 'why-prepare'),
        objectives: s.lesson_map.map((o) => ({ key: o.key, title: o.text, status: 'not_started' })),
      },
    });
    const [first] = s.lesson_map;
    const goal = first?.goals.find((g) => g.required);
    await h.must(mark_goal, p, { session: s.session, goal: String(goal?.key), status: 'done', evidence: 'Показал' });
    const again = await h.must(start_lesson, p, { lesson: s.lesson.id, frame: false });
    const marked = await progress(p.user);
    if (!marked.ok) throw new Error(marked.error.code);
    expect(marked.data.objectives.map((o) => [o.key, o.status])).toEqual(
      again.lesson_map.map((o) => [o.key, o.status]),
    );
    expect(marked.data.objectives[0]?.status).not.toBe('not_started');
    // Items never come.
    expect(JSON.stringify(marked)).not.toContain(String(goal?.key));
  });

  it('answers no session for another space, another user, or a session idle past start_lesson continuing it', async () => {
    const p = await h.student('idle@t');
    const s = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'why-prepare') });
    expect(await progress(p.user, 'acme')).toEqual(NONE);
    expect(await progress('nobody@t')).toEqual(NONE);
    await h.lessons.db
      .updateTable('sessions')
      .set({ last_activity_at: sql<string>`now() - interval '25 hours'` })
      .where('id', '=', s.session)
      .execute();
    expect(await progress(p.user)).toEqual(NONE);
  });

  it('answers no session once the lesson is closed, or once the progress is reset', async () => {
    const p = await h.student('closed@t');
    const s = await h.cover(p, 'why-prepare');
    await h.must(complete_lesson, p, { session: s.session });
    expect(await progress(p.user)).toEqual(NONE);
    const next = await h.must(start_lesson, p, { lesson: lessonId(h.basics.course, 'interests') });
    const open = await progress(p.user);
    expect(open).toMatchObject({ ok: true, data: { session: next.session } });
    await h.env.bus.request(resetProgress, null, { user: p.user, course: h.basics.course });
    expect(await progress(p.user)).toEqual(NONE);
  });
});
