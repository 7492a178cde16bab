import { publish_course } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data, text } from '../../../test/support/clients.ts';
import { startCourses } from '../../../test/support/courses.ts';
import { startLessons } from '../../../test/support/lessons.ts';
import { startEdge, startEnrollment } from '../../../test/support/stack.ts';
import { curator, sampleRelease } from './fixtures.ts';
import { call, publish } from './helpers.ts';

// A student's agent at /mcp starts a lesson (the real lessons service, whose session_started event
// tells courses of the session) and reports; the curator's agent at /authoring lists and resolves;
// the student's agent sees the answer in my_reports — real edge, real MCP clients.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let courses: Awaited<ReturnType<typeof startCourses>>;
let lessons: Awaited<ReturnType<typeof startLessons>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let studentAgent: AgentClient;
let curatorAgent: AgentClient;
let course: string;
let session: string;

beforeAll(async () => {
  env = await createTestEnv('courses-reports-edge');
  enrollment = await startEnrollment(env);
  courses = await startCourses(env);
  lessons = await startLessons(env);
  edge = await startEdge(env);
  await enrollment.admin.upsertUser('curator@test', 'Кира Куратор', ['Course Creator']);
  await enrollment.admin.upsertUser('student@test', 'Анна Ученица', ['Student']);
  curatorAgent = await connectAgent(
    'v2',
    `${edge.url}/authoring`,
    (await enrollment.admin.issueToken('curator@test')).token,
  );
  studentAgent = await connectAgent('v1', `${edge.url}/mcp`, (await enrollment.admin.issueToken('student@test')).token);
  const published = await publish(env, sampleRelease('reports-edge'));
  course = published.course;
  await call(env, publish_course, { course }, curator);
  // The catalog reaches enrollment through the course-card events.
  await eventually(async () => data(await studentAgent.callTool('enroll', { course })));
  const started = data(await studentAgent.callTool('start_lesson', { lesson: `${course}.l-1` }));
  session = started.session as string;
  // courses learns of the session from lessons' session_started event.
  await eventually(async () => {
    const row = await courses.database.db
      .selectFrom('lesson_sessions')
      .select('session')
      .where('session', '=', session)
      .executeTakeFirst();
    expect(row).toBeDefined();
  });
});

afterAll(async () => {
  await studentAgent?.close();
  await curatorAgent?.close();
  await edge?.close();
  await lessons?.close();
  await courses?.close();
  await enrollment?.close();
  await env?.cleanup();
});

describe('student reports through the edge', () => {
  it('the student reports, the curator lists and resolves, the student sees the answer', async () => {
    const reported = await studentAgent.callTool('report_issue', {
      session,
      kind: 'quiz_question_issue',
      text: 'Во втором вопросе два верных ответа',
      question: 'q-2',
    });
    const report = data(reported).report as number;
    expect(data(reported)).toEqual({ report, kind: 'quiz_question_issue' });

    const listed = await curatorAgent.callTool('course_reports', { course, status: 'open' });
    expect(data(listed).reports).toEqual([
      expect.objectContaining({ id: report, lesson_key: 'l-1', question_key: 'q-2', status: 'new' }),
    ]);

    const resolved = await curatorAgent.callTool('resolve_report', {
      report: String(report),
      status: 'fixed',
      resolution: 'Во втором вопросе урока «Цель разговора» оставили один верный вариант',
    });
    expect(data(resolved)).toMatchObject({ report, status: 'fixed', resolved_at: expect.any(String) });

    const mine = await studentAgent.callTool('my_reports', { course });
    expect(data(mine).reports).toEqual([
      expect.objectContaining({
        id: report,
        status: 'fixed',
        lesson_title: 'Цель разговора',
        resolution: 'Во втором вопросе урока «Цель разговора» оставили один верный вариант',
      }),
    ]);
  });

  it('refusals reach both agents with their codes', async () => {
    const bad = await studentAgent.callTool('report_issue', { session, kind: 'bug', text: 'x' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('[unknown_report_kind]');
    const missing = await curatorAgent.callTool('resolve_report', { report: 999999, status: 'fixed', resolution: 'x' });
    expect(missing.structuredContent).toMatchObject({ ok: false, error: { code: 'report_not_found' } });
  });
});
