import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleRelease } from '../services/courses/test/fixtures.ts';
import { type AgentClient, connectAgent, data, type ToolResult, text } from './support/clients.ts';
import { announceCourse, openCourse, startCourses } from './support/courses.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

// The edge keeps the replies of the course lists and revalidates them with enrollment on every
// call (conditional requests): a current list costs enrollment one stamp read, and any change —
// through the edge or not — shows on the very next call. The courses come from the real courses
// service (published and opened, or announced), their cards reaching enrollment on the stream.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let coursesService: Awaited<ReturnType<typeof startCourses>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let v1: AgentClient;
let v2: AgentClient;

/** Course ids by name: alpha, beta and gamma published and open, soon announced. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  env = await createTestEnv('kept-lists');
  enrollment = await startEnrollment(env);
  coursesService = await startCourses(env);
  edge = await startEdge(env);
  const a = enrollment.admin;
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertUser('kate@test.studium', 'Катя Ученица', ['Student']);
  await a.addMember('acme', 'kate@test.studium', 'member');
  ids.alpha = await openCourse(env, enrollment.db, sampleRelease('k-alpha'));
  ids.beta = await openCourse(env, enrollment.db, sampleRelease('k-beta'));
  ids.soon = await announceCourse(env, enrollment.db, {
    title: 'Скоро',
    summary: 'Курс, который скоро выйдет',
    objectives: ['Первая цель', 'Вторая цель'],
  });
  for (const c of [ids.alpha, ids.beta, ids.soon]) await a.allowCourse('acme', c as string);
  const { token } = await a.issueToken('kate@test.studium');
  v1 = await connectAgent('v1', `${edge.url}/mcp`, token);
  v2 = await connectAgent('v2', `${edge.url}/mcp`, token);
});

afterAll(async () => {
  await v1?.close();
  await v2?.close();
  await edge?.close();
  await coursesService?.close();
  await enrollment?.close();
  await env?.cleanup();
});

type Course = { course: string; notify?: boolean; overdue?: boolean };
const courses = (r: ToolResult) => (data(r).courses as Course[]).map((c) => c.course).sort();
/** The ids of named courses, sorted as `courses` gives them. */
const named = (...names: string[]) => names.map((n) => ids[n]).sort();

/** Hits and misses of the edge's kept replies, read off its /metrics. */
async function keptStats() {
  const body = await (await fetch(`${edge.url}/metrics`)).text();
  const value = (result: string) =>
    Number(
      body.match(
        new RegExp(`^studium_reply_cache_requests_total\\{[^}]*result="${result}"[^}]*\\} (\\d+)`, 'm'),
      )?.[1] ?? 0,
    );
  return { hit: value('hit'), stored: value('stored') };
}

/** The result's text content is the JSON of its structuredContent data, also when the reply was kept. */
function consistent(r: ToolResult) {
  expect(JSON.parse(text(r))).toEqual(data(r));
  return r;
}

describe('kept list replies at the edge', () => {
  it('answers an unchanged list from the kept reply, the same for 2025- and 2026-era clients', async () => {
    const first = consistent(await v1.callTool('list_catalog', {}));
    const before = await keptStats();
    const again = consistent(await v1.callTool('list_catalog', {}));
    const other = consistent(await v2.callTool('list_catalog', {}));
    expect(data(again)).toEqual(data(first));
    expect(data(other)).toEqual(data(first));
    expect(courses(first)).toEqual(named('alpha', 'beta', 'soon'));
    const after = await keptStats();
    expect(after.hit - before.hit).toBe(2);
    expect(after.stored).toBe(before.stored);
  });

  it('shows a change made outside the edge on the very next call', async () => {
    await v1.callTool('list_my_courses', {});
    const before = await keptStats();
    // The organization assigns a course straight in enrollment's database (the admin CLI's way).
    await enrollment.admin.assignCourse('acme', 'kate@test.studium', ids.alpha as string, { mandatory: true });
    expect(courses(consistent(await v1.callTool('list_catalog', {})))).toEqual(named('beta', 'soon'));
    expect(courses(consistent(await v1.callTool('list_my_courses', {})))).toEqual(named('alpha'));
    const after = await keptStats();
    expect(after.stored - before.stored).toBe(2);
  });

  it('shows the student’s own writes through the edge at once', async () => {
    await v1.callTool('list_catalog', {});
    expect(data(await v1.callTool('notify_when_released', { course: ids.soon }))).toMatchObject({ notify: true });
    const soon = (data(consistent(await v1.callTool('list_catalog', {}))).courses as Course[]).find(
      (c) => c.course === ids.soon,
    );
    expect(soon?.notify).toBe(true);
    expect(data(await v2.callTool('enroll', { course: ids.beta }))).toMatchObject({ course: ids.beta });
    expect(courses(consistent(await v1.callTool('list_catalog', {})))).toEqual(named('soon'));
    expect(courses(consistent(await v2.callTool('list_my_courses', {})))).toEqual(named('alpha', 'beta'));
  });

  it('shows a new course card from the events stream on the next call', async () => {
    await v1.callTool('list_catalog', {});
    ids.gamma = await openCourse(env, enrollment.db, sampleRelease('k-gamma'));
    await enrollment.admin.allowCourse('acme', ids.gamma);
    expect(courses(consistent(await v1.callTool('list_catalog', {})))).toEqual(named('gamma', 'soon'));
  });
});
