import { lesson_item, lessonId, mark_goal, start_lesson } from '@studium/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('lessons-mark');
});
afterAll(async () => {
  await h?.close();
});

describe('start_lesson → lesson_item → mark_goal', () => {
  it('starts the first lesson without arguments and continues the same session on a repeat call', async () => {
    const anna = await h.student('anna@t');
    const first = await h.must(start_lesson, anna, {});
    expect(first.lesson.id).toBe(lessonId(h.basics.course, 'why-prepare'));
    expect(first.start.opening).toBe('first_in_course');
    expect(first.space).toBe('personal');
    expect(first.teaching_rules).toContain('ученику не показывать');
    expect(first.lesson_map.map((o) => o.key)).toEqual(['spot-negotiations', 'case-chosen']);
    expect(first.next_step).toMatchObject({ kind: 'goal', goal: 'term:T1' });
    expect(first.quiz).toEqual({ required: false, pass_threshold: null, attempts_left: null });
    const again = await h.must(start_lesson, anna, { lesson: first.lesson.id, frame: false });
    expect(again.session).toBe(first.session);
    expect(again.course_frame).toBeUndefined();
  });

  it('lesson_item gives details and next; unknown items are refused with the lesson keys', async () => {
    const p = await h.student('item@t');
    const s = await h.must(start_lesson, p, {});
    const item = await h.must(lesson_item, p, { session: s.session, goal: 'term:T1' });
    expect(item.goal).toMatchObject({ key: 'term:T1', kind: 'term', required: true, status: 'open' });
    expect(item.details).toContain('Рабочие переговоры');
    expect(item.next).toContain('mark_goal');
    const bad = await h.call(lesson_item, p, { session: s.session, goal: 'term:T9' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'goal_unknown' } });
    expect((bad as unknown as { error: { goals: string[] } }).error.goals).toContain('execution:E1');
  });

  it('marks items, moves the objective and the lesson, and says the next step', async () => {
    const p = await h.student('marks@t');
    const s = await h.must(start_lesson, p, {});
    const m1 = await h.must(mark_goal, p, {
      session: s.session,
      goal: 'term:T1',
      status: 'done',
      evidence: 'Назвал переговоры о сроках релиза с заказчиком',
      resume_from: 'Перейти к заблуждению о торге',
    });
    expect(m1).toMatchObject({
      goal: 'term:T1',
      status: 'done',
      objective: { key: 'spot-negotiations', status: 'touched', open: [{ goal: 'misconception:M1' }] },
      lesson: 'in_progress',
      next_step: { kind: 'goal', goal: 'misconception:M1' },
    });
    // out of order: the execution item of the second objective first
    const m2 = await h.must(mark_goal, p, {
      session: s.session,
      goal: 'execution:E1',
      status: 'planned',
      evidence: 'Опишет случай с соседней командой',
    });
    expect(m2.objective).toMatchObject({ key: 'case-chosen', status: 'covered', open: [] });
    expect(m2.next_step).toMatchObject({ kind: 'goal', goal: 'misconception:M1' });
    const m3 = await h.must(mark_goal, p, {
      session: s.session,
      goal: 'misconception:M1',
      status: 'done',
      evidence: 'Сказал, что продавленная победа портит отношения',
    });
    expect(m3).toMatchObject({ lesson: 'covered', next_step: { kind: 'complete' } });
    // a repeated mark replaces the previous one; open erases the evidence; the lesson stays covered
    const reopened = await h.must(mark_goal, p, { session: s.session, goal: 'term:T1', status: 'open' });
    expect(reopened).toMatchObject({ status: 'open', lesson: 'covered', next_step: { kind: 'goal', goal: 'term:T1' } });
    const again = await h.must(start_lesson, p, { lesson: s.lesson.id });
    expect(again.resume_from).toBe('Перейти к заблуждению о торге');
    expect(again.start.opening).toBe('repeat');
    const goals = again.lesson_map.flatMap((o) => o.goals);
    expect(goals.find((g) => g.key === 'term:T1')?.status).toBe('open');
    expect(goals.find((g) => g.key === 'execution:E1')?.status).toBe('planned');
  });

  it('refuses bad marks before writing anything', async () => {
    const p = await h.student('refuse@t');
    const s = await h.must(start_lesson, p, {});
    const cases: Array<[Record<string, string>, string]> = [
      [{ goal: 'term:T1', status: 'finished', evidence: 'x' }, 'goal_status_unknown'],
      [{ goal: 'term:T1', status: 'not_needed', evidence: 'x' }, 'not_needed_required'],
      [{ goal: 'term:T1', status: 'done' }, 'evidence_required'],
      [{ goal: 'term:T1', status: 'done', evidence: '   ' }, 'evidence_required'],
      [{ goal: 'term:T1', status: 'done', evidence: 'x'.repeat(501) }, 'evidence_too_long'],
      [{ goal: 'term:T1', status: 'done', evidence: 'ok', resume_from: 'y'.repeat(501) }, 'resume_from_too_long'],
      [{ goal: 'term:ZZ', status: 'done', evidence: 'ok' }, 'goal_unknown'],
    ];
    for (const [args, code] of cases) {
      const r = await h.call(mark_goal, p, { session: s.session, ...args } as never);
      expect(r, code).toMatchObject({ ok: false, error: { code } });
    }
    const tooLong = await h.call(mark_goal, p, {
      session: s.session,
      goal: 'term:T1',
      status: 'done',
      evidence: 'x'.repeat(501),
    });
    expect(tooLong).toMatchObject({ error: { limit: 500, length: 501 } });
    const other = await h.student('other@t');
    const foreign = await h.call(mark_goal, other, {
      session: s.session,
      goal: 'term:T1',
      status: 'done',
      evidence: 'x',
    });
    expect(foreign).toMatchObject({ ok: false, error: { code: 'not_your_session' } });
    const foreignItem = await h.call(lesson_item, other, { session: s.session, goal: 'term:T1' });
    expect(foreignItem).toMatchObject({ ok: false, error: { code: 'not_your_session' } });
    const after = await h.must(start_lesson, p, { lesson: s.lesson.id });
    expect(after.lesson_map.flatMap((o) => o.goals).every((g) => g.status === 'open')).toBe(true);
    expect(after.resume_from).toBeNull();
  });

  it('not_needed closes an optional item without blocking', async () => {
    const p = await h.student('optional@t');
    const s = await h.must(start_lesson, p, {});
    const r = await h.must(mark_goal, p, {
      session: s.session,
      goal: 'choice:C1',
      status: 'not_needed',
      evidence: 'Сразу выбрал свой случай',
    });
    expect(r.status).toBe('not_needed');
  });

  it('busy: of two concurrent marks on one session one is refused busy, the other lands, nothing is lost or doubled', async () => {
    const p = await h.student('busy@t');
    const s = await h.must(start_lesson, p, {});
    let busy = 0;
    const lastOk = new Map<string, string>();
    for (let round = 0; round < 20 && busy === 0; round++) {
      const calls = [
        { goal: 'term:T1', evidence: `A${round}` },
        { goal: 'misconception:M1', evidence: `B${round}` },
      ];
      const replies = await Promise.all(
        calls.map((c) => h.call(mark_goal, p, { session: s.session, status: 'done', ...c })),
      );
      const codes = replies.map((r) => (r.ok ? 'ok' : r.error.code));
      expect(codes.every((c) => c === 'ok' || c === 'busy')).toBe(true);
      expect(codes).toContain('ok');
      replies.forEach((r, i) => {
        if (r.ok) lastOk.set(calls[i]?.goal as string, calls[i]?.evidence as string);
      });
      busy += codes.filter((c) => c === 'busy').length;
    }
    expect(busy).toBeGreaterThan(0);
    const session = await h.lessons.db
      .selectFrom('sessions')
      .select('run_id')
      .where('id', '=', s.session)
      .executeTakeFirstOrThrow();
    const rows = await h.lessons.db
      .selectFrom('goal_marks')
      .select(['goal', 'evidence'])
      .where('run_id', '=', session.run_id)
      .execute();
    expect(new Map(rows.map((r) => [r.goal, r.evidence]))).toEqual(lastOk);
  });
});
