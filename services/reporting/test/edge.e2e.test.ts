import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data, text } from '../../../test/support/clients.ts';
import { startEdge, startEnrollment } from '../../../test/support/stack.ts';
import { publishEvents } from '../../enrollment/test/support/cards.ts';
import { courseCard, lessonEvents, SUBJECTS, startReporting } from './support/reporting.ts';

// A student studies; the manager sees it through the edge with real MCP clients. Enrollment is the
// real service (its admin and enroll emit the enrollment events); the lessons and homework events
// are published to the stream as their services' outbox relays do (those services are not on this
// branch: see services/reporting/README.md for what the e2e gains when they are).
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let reporting: Awaited<ReturnType<typeof startReporting>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let student: AgentClient;
let manager: AgentClient;
const SECRET = ['Свидетельство: ученик объяснил термин своими словами', 'Мой ответ на вопрос 2', 'заметка о студенте'];
const now = () => new Date().toISOString();

beforeAll(async () => {
  env = await createTestEnv('reporting-edge');
  enrollment = await startEnrollment(env);
  reporting = await startReporting(env);
  edge = await startEdge(env);
  const a = enrollment.admin;
  await a.upsertUser('kate@t', 'Катя Ученица', ['Student']);
  await a.upsertUser('boss@t', 'Борис Руководитель', ['Manager']);
  await a.upsertOrganization('acme', 'Акме');
  await a.addMember('acme', 'kate@t', 'member');
  await a.addMember('acme', 'boss@t', 'manager');
  await publishEvents(env, SUBJECTS.card, [courseCard('e1', 2)]);
  await eventually(async () => {
    if (!(await enrollment.db.selectFrom('catalog').select('course').executeTakeFirst())) throw new Error('no card');
  });
  await a.allowCourse('acme', 'e1');
  await a.assignCourse('acme', 'kate@t', 'e1', { mandatory: true, deadline: '2030-01-01T00:00:00Z' });
  await enrollment.app.flush();
  student = await connectAgent('v2', `${edge.url}/mcp`, (await a.issueToken('kate@t')).token);
  manager = await connectAgent('v1', `${edge.url}/mcp`, (await a.issueToken('boss@t')).token);
}, 60_000);

afterAll(async () => {
  await student?.close();
  await manager?.close();
  await edge?.close();
  await reporting?.close();
  await enrollment?.close();
  await env?.cleanup();
});

describe('a student studies, the manager sees it through the edge', () => {
  it('shows lessons, quiz, homework and document in org_report and student_detail, and nothing of the dialogue', async () => {
    const e = lessonEvents('kate@t', 'e1', 'acme');
    await publishEvents(env, SUBJECTS.started, [e.started(1, 'k-s1', now())]);
    await publishEvents(env, SUBJECTS.marked, [
      { ...e.marked(1, 'k-s1', 'l1-D1', 'covered', now()), evidence: SECRET[0] },
      { ...e.marked(1, 'k-s1', 'l1-D2', 'covered', now()), evidence: SECRET[0] },
    ]);
    await publishEvents(env, SUBJECTS.covered, [e.covered(1, 'k-s1', now())]);
    await publishEvents(env, SUBJECTS.finished, [
      { ...e.finished(1, 'k-s1', 'k-a1', 1, 0.8, now()), student_words: SECRET[1] },
    ]);
    await publishEvents(env, SUBJECTS.passed, [e.passed(1, 'k-s1', now(), 1, 2)]);
    await publishEvents(env, SUBJECTS.homework, [e.homework(1, 'Submitted', 1, now())]);
    await publishEvents(env, SUBJECTS.document, [{ ...e.document('plan', 3, 2, now()), note: SECRET[2] }]);

    const report = await eventually(async () => {
      const r = await manager.callTool('org_report', {});
      expect(r.isError).toBeFalsy();
      const d = data(r) as { rows: Array<Record<string, unknown>> };
      expect(d.rows[0]?.document).toEqual({ blocks_total: 3, blocks_filled: 2 });
      return r;
    });
    expect((data(report) as { rows: unknown[] }).rows).toEqual([
      expect.objectContaining({
        user: 'kate@t',
        full_name: 'Катя Ученица',
        organization: 'acme',
        course: 'e1',
        status: 'in_progress',
        progress: 0.5,
        mandatory: true,
        overdue: false,
      }),
    ]);
    const detail = await manager.callTool('student_detail', { user: 'kate@t' });
    expect(detail.isError).toBeFalsy();
    const d = data(detail) as Record<string, Array<Record<string, unknown>>>;
    expect(d.sessions?.[0]).toMatchObject({ session: 'k-s1', status: 'passed' });
    expect(d.sessions?.[0]?.objectives).toEqual([
      { objective: 'l1-D1', title: 'Понимает термин', status: 'covered' },
      { objective: 'l1-D2', title: 'Применяет на примере', status: 'covered' },
    ]);
    expect(d.attempts?.[0]).toMatchObject({ attempt: 'k-a1', number: 1, score: 0.8, passed: true, status: 'Passed' });
    expect(d.homework?.[0]).toMatchObject({ status: 'Submitted', version: 1 });
    for (const reply of [report, detail]) {
      const all = JSON.stringify(reply);
      for (const s of SECRET) expect(all).not.toContain(s);
      expect(all).not.toContain('term:T1');
    }
  });

  it("gives the student her own progress beside whoami, and the manager's tools to her empty or refused", async () => {
    const who = await student.callTool('whoami', {});
    expect(who.isError).toBeFalsy();
    const progress = await student.callTool('get_my_progress', { space: 'acme' });
    expect(data(progress)).toMatchObject({ space: 'acme', courses_count: 1, overdue_count: 0 });
    const own = await student.callTool('org_report', {});
    expect(own.isError).toBeFalsy();
    expect((data(own) as { rows: unknown[] }).rows).toEqual([]);
    const refused = await student.callTool('student_detail', { user: 'boss@t' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('[not_your_student]');
    const missing = await manager.callTool('student_detail', {});
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('[invalid_arguments]');
    const space = await student.callTool('get_my_progress', { space: 'nowhere' });
    expect(text(space)).toContain('[space_not_available]');
  });
});
