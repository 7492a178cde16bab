import { resolve } from 'node:path';
import { STUDENT_TEXT_NOTE } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHomework } from '../services/homework/test/support/stack.ts';
import { startReporting } from '../services/reporting/test/support/reporting.ts';
import { type AgentClient, connectAgent, data, text } from './support/clients.ts';
import { startCourses } from './support/courses.ts';
import { startKnowledge } from './support/knowledge.ts';
import { CURATOR, EXAMPLES, publishMap, startLessons } from './support/lessons.ts';
import { startEdge, startEnrollment } from './support/stack.ts';
import { passLesson } from './support/teach.ts';

// The whole platform at once, every service real: a student's agent studies the first demo
// lesson in the organization's space (notes, the course document, a report, the lesson closed,
// homework submitted), the curator answers the report and returns the homework, and the next
// start_lesson brings all of it back from the other contexts (history, closed_reports,
// previous_homework, artifact_blocks); the manager's reports show the student's progress and
// never the evidence of a mark.
const STUDENT = 'olga@test.studium';
const MANAGER = 'boss@test.studium';
const EVIDENCE = 'Ольга назвала свой случай: переговоры с соседней командой о сроках релиза';

let env: TestEnv;
const stops: Array<{ close(): Promise<void> }> = [];
let student: AgentClient;
let curator: AgentClient;
let manager: AgentClient;
let course: string;
let session: string;
let admin: Awaited<ReturnType<typeof startEnrollment>>['admin'];

beforeAll(async () => {
  env = await createTestEnv('platform-e2e');
  const enrollment = await startEnrollment(env);
  stops.push(enrollment);
  for (const start of [startCourses, startLessons, startHomework, startKnowledge, startReporting]) {
    stops.push(await start(env));
  }
  const edge = await startEdge(env);
  stops.push(edge);
  course = (await publishMap(env.bus, resolve(EXAMPLES, 'negotiation-basics'))).course;
  const a = enrollment.admin;
  admin = a;
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertUser(STUDENT, 'Ольга Ученица', ['Student']);
  await a.upsertUser(MANAGER, 'Борис Руководитель', ['Student']);
  await a.upsertUser(CURATOR.user, CURATOR.full_name, CURATOR.roles);
  await a.addMember('acme', STUDENT, 'member');
  await a.addMember('acme', MANAGER, 'manager');
  await eventually(async () => {
    const rows = await enrollment.db.selectFrom('catalog').select('course').where('course', '=', course).execute();
    expect(rows).toHaveLength(1);
  });
  await a.allowCourse('acme', course);
  await a.assignCourse('acme', STUDENT, course, { mandatory: true, deadline: '2099-01-01' });
  const token = async (user: string) => (await a.issueToken(user)).token;
  student = await connectAgent('v2', `${edge.url}/mcp`, await token(STUDENT));
  manager = await connectAgent('v2', `${edge.url}/mcp`, await token(MANAGER));
  curator = await connectAgent('v2', `${edge.url}/authoring`, await token(CURATOR.user));
}, 120_000);

afterAll(async () => {
  for (const c of [student, curator, manager]) await c?.close();
  for (const s of stops.reverse()) await s.close().catch(() => {});
  await env?.cleanup();
});

describe('one lesson through every context', () => {
  it("starts the first lesson in the organization's space, with the lesson's document section", async () => {
    const started = data(await student.callTool('start_lesson', { course }));
    session = started.session as string;
    expect(started).toMatchObject({ space: 'acme', previous_homework: null });
    expect(started.artifact_blocks).toEqual([expect.objectContaining({ key: 'case', filled: false })]);
  });

  it('remembers a fact and a project note of the session (knowledge asks lessons for its course)', async () => {
    data(await student.callTool('remember', { kind: 'fact', key: 'role', text: 'Тимлид команды платежей' }));
    data(
      await student.callTool('remember', {
        kind: 'project',
        key: 'deadline_talk',
        text: 'Переговоры о сроках релиза с соседней командой',
        session,
      }),
    );
    // Another person's agent cannot write into this student's session.
    const foreign = await manager.callTool('remember', { kind: 'observation', key: 'pace', text: 'Быстро', session });
    expect(foreign.isError).toBe(true);
    expect(foreign.structuredContent).toMatchObject({ ok: false, error: { code: 'not_your_session' } });
    const notes = data(await student.callTool('my_notes', { course }));
    expect(JSON.stringify(notes), JSON.stringify(notes)).toContain('Переговоры о сроках релиза');
  });

  it('fills the section, reports a problem, marks every required item and closes the lesson', async () => {
    data(
      await student.callTool('update_artifact', {
        course,
        artifact: 'negotiation_plan',
        key: 'case',
        fields: { counterpart: 'Соседняя команда', subject: 'Сроки релиза' },
      }),
    );
    data(
      await student.callTool('report_issue', {
        session,
        kind: 'material_issue',
        text: 'В материале опечатка в примере',
      }),
    );
    // start_lesson continues the session, then every required item is marked and the lesson closed.
    const passed = await passLesson(student, { course }, { evidence: EVIDENCE });
    expect(passed.session).toBe(session);
    expect(passed.via).toBe('complete');
    expect(passed.closed.empty_blocks).toEqual([]);
  });

  it('gets the homework once the lesson is passed, submits it, and the curator returns it and answers the report', async () => {
    const lesson = `${course}.why-prepare`;
    await eventually(async () => {
      const mine = data(await student.callTool('my_homework', { course }));
      expect(JSON.stringify(mine)).toContain('Assigned');
    });
    data(
      await student.callTool('submit_homework', { lesson, answer: 'План разговора: интересы, альтернатива, граница.' }),
    );
    const queue = data(await curator.callTool('homework_queue', { course }));
    const submission = (queue.items as Array<{ submission: string }>)[0].submission;
    data(await curator.callTool('return_homework', { submission, comment: 'Добавьте свою альтернативу' }));
    const reports = data(await curator.callTool('course_reports', { course }));
    // The student's words reach the curator's agent marked as data (issue 17 point 5), and the
    // tool's description says so.
    expect((reports.reports as Array<{ trust?: string }>)[0].trust).toBe('untrusted');
    const listed = (await curator.listTools()).tools.find((t) => t.name === 'course_reports');
    expect(listed?.description).toContain(STUDENT_TEXT_NOTE.trim());
    const report = (reports.reports as Array<{ id: number }>)[0].id;
    data(await curator.callTool('resolve_report', { report, status: 'fixed', resolution: 'Опечатку поправили' }));
  });

  it('brings it all back at the next start_lesson: history, closed reports, the returned homework', async () => {
    const next = data(await student.callTool('start_lesson', { course }));
    expect(next.session).not.toBe(session);
    expect(next.previous_homework).toMatchObject({ status: 'Returned', last_comment: 'Добавьте свою альтернативу' });
    expect(next.closed_reports).toEqual([
      expect.objectContaining({ status: 'fixed', resolution: 'Опечатку поправили' }),
    ]);
    expect(JSON.stringify(next.history)).toContain('Тимлид команды платежей');
    // A closed report reaches the student once.
    const again = data(await student.callTool('start_lesson', { course }));
    expect(again.closed_reports ?? []).toEqual([]);
  });

  it("shows the manager the student's progress and the lesson's objectives, never the evidence", async () => {
    await eventually(async () => {
      const report = data(await manager.callTool('org_report', { course }));
      const row = (report.rows as Array<Record<string, unknown>>).find((r) => r.user === STUDENT);
      expect(row).toMatchObject({ status: 'in_progress' });
      expect(JSON.stringify(row)).toMatch(/"lessons_passed":1\b/);
    });
    const detail = await manager.callTool('student_detail', { user: STUDENT });
    expect(text(detail)).not.toContain(EVIDENCE);
    expect(JSON.stringify(data(detail))).toContain('why-prepare');
  });

  it('refuses not_enrolled mid-lesson once the organization removes the student (access revoked)', async () => {
    const next = data(await student.callTool('start_lesson', { course }));
    await admin.removeMember('acme', STUDENT);
    await eventually(async () => {
      const refused = await student.callTool('mark_goal', {
        session: next.session,
        goal: 'term:T1',
        status: 'done',
        evidence: EVIDENCE,
      });
      expect(refused.structuredContent).toMatchObject({ ok: false, error: { code: 'not_enrolled' } });
    });
    const item = await student.callTool('lesson_item', { session: next.session, goal: 'term:T1' });
    expect(item.structuredContent).toMatchObject({ ok: false, error: { code: 'not_enrolled' } });
  });
});
