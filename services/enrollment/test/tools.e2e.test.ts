import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data, type SdkVersion, text } from '../../../test/support/clients.ts';
import { announceCourse, openCourse, startCourses } from '../../../test/support/courses.ts';
import { startEdge } from '../../../test/support/stack.ts';
import { sampleRelease } from '../../courses/test/fixtures.ts';
import { startEnrollmentService } from './support/service.ts';

// The catalog and enrollment tools through the real edge, as an agent calls them (both SDK majors
// validate structuredContent against the output schemas). The courses come from the real courses
// service: «Курс one» and «Курс two» published and open, «Курс soon» announced.
let env: TestEnv;
let svc: Awaited<ReturnType<typeof startEnrollmentService>>;
let courses: Awaited<ReturnType<typeof startCourses>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let token: string;
/** Course ids by name. */
let one: string;
let two: string;
let soon: string;

/** The courses' sample release under another key and title. */
function release(key: string) {
  const r = sampleRelease(key);
  r.course.title = `Курс ${key}`;
  return r;
}

beforeAll(async () => {
  env = await createTestEnv('enrollment-tools');
  svc = await startEnrollmentService(env);
  courses = await startCourses(env);
  edge = await startEdge(env);
  const a = svc.admin;
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertUser('ann@t', 'Анна', ['Student']);
  await a.addMember('acme', 'ann@t', 'member');
  one = await openCourse(env, svc.db, release('one'));
  two = await openCourse(env, svc.db, release('two'));
  soon = await announceCourse(env, svc.db, { title: 'Курс soon', summary: 'Скоро', objectives: ['Цель'] });
  for (const c of [one, two, soon]) await a.allowCourse('acme', c);
  await a.saveProgram('track', 'Трек', true, [one, two]);
  await a.addProgramMember('track', 'ann@t');
  token = (await a.issueToken('ann@t')).token;
});

afterAll(async () => {
  await edge?.close();
  await courses?.close();
  await svc?.close();
  await env?.cleanup();
});

describe.each<SdkVersion>(['v1', 'v2'])('with the %s SDK client', (version) => {
  let agent: AgentClient;
  beforeAll(async () => {
    agent = await connectAgent(version, `${edge.url}/mcp`, token);
  });
  afterAll(async () => {
    await agent.close();
  });

  it('list_catalog shows courses, the announcement and the program lock', async () => {
    const result = await agent.callTool('list_catalog', {});
    expect(result.isError).toBeFalsy();
    const list = data(result).courses as Array<Record<string, unknown>>;
    expect(list.map((c) => c.course)).toEqual(expect.arrayContaining([soon, two]));
    expect(list.find((c) => c.course === two)?.locked_by).toEqual({ course: one, title: 'Курс one' });
    expect(list.find((c) => c.course === soon)).toMatchObject({ upcoming: true, notify: expect.any(Boolean) });
  });

  it('enroll on a locked course is refused with program_order, rendered for the agent', async () => {
    const result = await agent.callTool('enroll', { course: two });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `Курс «Курс two» в программе «Трек» идёт после курса «Курс one»: сначала пройдите его [program_order] program: "track" program_title: "Трек" previous: {"course": "${one}", "title": "Курс one"}`,
    );
  });

  it('notify_when_released and list_my_courses answer through the edge', async () => {
    const sub = await agent.callTool('notify_when_released', { course: soon });
    expect(data(sub)).toEqual({ course: soon, title: 'Курс soon', notify: true });
    const mine = await agent.callTool('list_my_courses', { space: 'acme' });
    expect(mine.isError).toBeFalsy();
    expect(data(mine).space).toBe('acme');
  });
});

describe('enrolling through the edge', () => {
  it('enrolls in the selected organization space and lists the course there', async () => {
    const agent = await connectAgent('v2', `${edge.url}/mcp`, token);
    expect(data(await agent.callTool('set_space', { space: 'acme' }))).toEqual({ current: 'acme' });
    const enrolled = await agent.callTool('enroll', { course: one });
    expect(data(enrolled)).toEqual({
      course: one,
      title: 'Курс one',
      space: 'acme',
      first_lesson: { id: `${one}.l-1`, title: 'Цель разговора' },
    });
    const mine = data(await agent.callTool('list_my_courses', {}));
    expect(mine.space).toBe('acme');
    expect(mine.courses).toMatchObject([{ course: one, organization: 'acme', mandatory: null, lessons_total: 3 }]);
    const again = await agent.callTool('enroll', { course: one, space: 'personal' });
    expect((again.structuredContent as { error: { code: string } }).error.code).toBe('already_enrolled');
    await agent.close();
  });
});
