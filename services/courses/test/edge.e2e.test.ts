import { INPUT_LIMITS } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data, text } from '../../../test/support/clients.ts';
import { startCourses } from '../../../test/support/courses.ts';
import { startEdge, startEnrollment } from '../../../test/support/stack.ts';
import { sampleRelease } from './fixtures.ts';
import { publish } from './helpers.ts';

// The curator's agent at /authoring, through the real edge, as an MCP client would call it.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let courses: Awaited<ReturnType<typeof startCourses>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let agent: AgentClient;
let course: string;

beforeAll(async () => {
  env = await createTestEnv('courses-edge');
  enrollment = await startEnrollment(env);
  courses = await startCourses(env);
  edge = await startEdge(env);
  await enrollment.admin.upsertUser('curator@test', 'Кира Куратор', ['Course Creator']);
  const token = (await enrollment.admin.issueToken('curator@test')).token;
  agent = await connectAgent('v2', `${edge.url}/authoring`, token);
  course = (await publish(env, sampleRelease('edge'))).course;
});

afterAll(async () => {
  await agent?.close();
  await edge?.close();
  await courses?.close();
  await enrollment?.close();
  await env?.cleanup();
});

describe('curator tools through the edge', () => {
  it('list_courses finds the released course', async () => {
    const result = await agent.callTool('list_courses', {});
    expect(result.isError).toBeFalsy();
    const listed = (data(result).courses as Array<Record<string, unknown>>).find((c) => c.course === course);
    expect(listed).toMatchObject({ course_key: 'edge', lessons: 3 });
  });

  it('a refusal reaches the agent with its code and details', async () => {
    const result = await agent.callTool('add_note', { course, target: 'lesson.l-9', text: 'Вопрос' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('[note_target_unknown]');
    expect(result.structuredContent).toMatchObject({ ok: false, error: { code: 'note_target_unknown' } });
  });

  it('course_release with a lesson gives the agent package', async () => {
    const result = await agent.callTool('course_release', { course, lesson: 'l-2' });
    expect(result.isError).toBeFalsy();
    expect(data(result).lesson).toMatchObject({ key: 'l-2', homework: { answer_mode: 'text' } });
  });

  it('what a curator may write, list_courses can return: the longest title and summary, many times', async () => {
    for (let i = 0; i < 5; i++) {
      const created = await agent.callTool('create_course', {
        title: `${i}${'т'.repeat(INPUT_LIMITS.title - 1)}`,
        summary: 'с'.repeat(INPUT_LIMITS.summary),
        description: 'о'.repeat(INPUT_LIMITS.long),
      });
      expect(created.isError).toBeFalsy();
    }
    const over = await agent.callTool('create_course', {
      title: 'Курс',
      summary: 'с'.repeat(INPUT_LIMITS.summary + 1),
    });
    expect(over.structuredContent).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    const nul = await agent.callTool('create_course', { title: 'Курс\u0000', summary: 'Карточка' });
    expect(nul.structuredContent).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    const listed = await agent.callTool('list_courses', {});
    expect(listed.isError).toBeFalsy();
    const long = (data(listed).courses as Array<{ summary: string }>).filter(
      (c) => c.summary.length === INPUT_LIMITS.summary,
    );
    expect(long).toHaveLength(5);
  });
});
