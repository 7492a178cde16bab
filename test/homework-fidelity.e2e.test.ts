import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { phraseFor } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHomeworkStack } from '../services/homework/test/support/stack.ts';
import { type AgentClient, connectAgent, data, text } from './support/clients.ts';
import { startLessons } from './support/lessons.ts';
import { startEdge } from './support/stack.ts';
import { passLesson } from './support/teach.ts';

// Issue 19, points 13–17, through the edge as the agents meet them: curator comments as long as
// any text for the student, fill_document's refusals as artifact's, every access violation in the
// journal with its tool, one wording of a homework task, and the author prompt's review tools and
// --attach step.
let env: TestEnv;
let stack: Awaited<ReturnType<typeof startHomeworkStack>>;
let lessons: Awaited<ReturnType<typeof startLessons>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let student: AgentClient;
let curator: AgentClient;
let outsider: AgentClient;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  env = await createTestEnv('homework-fidelity');
  stack = await startHomeworkStack(env, { PROGRESS_TIMEOUT_MS: '1000' });
  lessons = await startLessons(env, { CONTEXT_TIMEOUT_MS: '1000' });
  edge = await startEdge(env, { REQUEST_TIMEOUT_MS: '4000' });
  const a = stack.enrollment.admin;
  for (const u of ['anna@hw', 'curator@hw', 'other@hw']) tokens[u] = (await a.issueToken(u)).token;
  student = await connectAgent('v1', `${edge.url}/mcp`, tokens['anna@hw']);
  curator = await connectAgent('v2', `${edge.url}/authoring`, tokens['curator@hw']);
  outsider = await connectAgent('v1', `${edge.url}/authoring`, tokens['other@hw']);
}, 60_000);

afterAll(async () => {
  for (const c of [student, curator, outsider]) await c?.close();
  await edge?.close();
  await lessons?.close();
  await stack?.close();
  await env?.cleanup();
});

const refusalCode = (r: { structuredContent?: Record<string, unknown> }) =>
  (r.structuredContent as { error?: { code?: string } } | undefined)?.error?.code;

let submission = '';

describe('homework of a passed lesson', () => {
  it('start_lesson, my_homework and course_release word the task the same way (point 16)', async () => {
    const lesson = stack.lesson('l-text');
    const passed = await passLesson(student, { lesson, space: 'acme' });
    const started = passed.started.homework as Record<string, unknown>;
    await eventually(async () => {
      const list = data(await student.callTool('my_homework', { course: stack.course, space: 'acme' }));
      expect(list.items).toEqual([expect.objectContaining({ lesson, status: 'Assigned' })]);
    });
    const mine = data(await student.callTool('my_homework', { lesson, space: 'acme' }));
    const item = (mine.items as Array<Record<string, unknown>>)[0];
    const release = data(await curator.callTool('course_release', { course: stack.course, lesson: 'l-text' })) as {
      lesson: { homework: Record<string, unknown> };
    };
    const curatorView = release.lesson.homework;
    const want = {
      title: 'Домашнее задание к уроку «Текстовая домашка»',
      description: 'Опишите договорённость',
      answer_mode: 'text',
      due: '7 дней после закрытия урока',
    };
    expect(started).toEqual(want);
    expect(mine.homework).toMatchObject(want);
    expect(item.title).toBe(want.title);
    expect(curatorView).toEqual(want);
  });

  it('curator comments of 10,000 characters reach the student whole; 10,001 is refused (point 13)', async () => {
    const lesson = stack.lesson('l-text');
    data(await student.callTool('submit_homework', { lesson, answer: 'Договорились о бюджете', space: 'acme' }));
    const queue = data(await curator.callTool('homework_queue', {})) as {
      items: Array<{ submission: string; lesson: string }>;
    };
    submission = String(queue.items.find((i) => i.lesson === lesson)?.submission);
    const long = (c: string) => `${c}${'а'.repeat(9_999)}`;
    const tooLong = await curator.callTool('return_homework', { submission, comment: `${long('x')}!` });
    expect(refusalCode(tooLong)).toBe('invalid_arguments');
    const returned = data(await curator.callTool('return_homework', { submission, comment: long('В') }));
    expect(returned).toMatchObject({ status: 'Returned', last_comment: long('В') });
    const mine = data(await student.callTool('my_homework', { lesson, space: 'acme' }));
    expect((mine.items as Array<{ last_comment: string }>)[0].last_comment).toHaveLength(10_000);
    data(
      await student.callTool('submit_homework', { lesson, answer: 'Договорились о бюджете и сроке', space: 'acme' }),
    );
    const accepted = data(await curator.callTool('accept_homework', { submission, comment: long('П') })) as {
      status: string;
      events: Array<{ event: string; comment: string | null }>;
    };
    expect(accepted.status).toBe('Accepted');
    expect(accepted.events.at(-1)).toMatchObject({ event: 'accepted', comment: long('П') });
    const cancelled = data(await curator.callTool('cancel_acceptance', { submission, comment: long('О') }));
    expect(cancelled).toMatchObject({ status: 'Returned', last_comment: long('О') });
    expect(refusalCode(await curator.callTool('accept_homework', { submission, comment: `${long('x')}!` }))).toBe(
      'invalid_arguments',
    );
    expect(refusalCode(await curator.callTool('cancel_acceptance', { submission, comment: `${long('x')}!` }))).toBe(
      'invalid_arguments',
    );
  });
});

describe('every access violation is in the journal (point 15)', () => {
  const rows = (kind: string, user: string) =>
    edge.database.db
      .selectFrom('audit_log')
      .select(['kind', 'user_id', 'endpoint', 'tool'])
      .where('kind', '=', kind)
      .where('user_id', '=', user)
      .execute();

  it('a non-author on /authoring: 403, and the row names the tool', async () => {
    const res = await fetch(`${edge.url}/authoring`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens['anna@hw']}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'homework_queue', arguments: {} },
      }),
    });
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toBe(phraseFor(403));
    // A body that does not parse is the same violation, not a parse error.
    for (const [type, body] of [
      ['application/json', '{"jsonrpc": "2.0", "method": "tools/call", '],
      ['text/plain', 'homework_queue'],
    ]) {
      const bad = await fetch(`${edge.url}/authoring`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens['anna@hw']}`, 'content-type': type },
        body,
      });
      expect(bad.status, type).toBe(403);
    }
    const written = await rows('author_role_required', 'anna@hw');
    expect(written).toHaveLength(3);
    expect(written).toEqual(
      expect.arrayContaining([
        { kind: 'author_role_required', user_id: 'anna@hw', endpoint: '/authoring', tool: 'homework_queue' },
        { kind: 'author_role_required', user_id: 'anna@hw', endpoint: '/authoring', tool: null },
      ]),
    );
    expect(written.filter((r) => r.tool === null)).toHaveLength(2);
  });

  it('an author who does not teach the course: goal_runs and the review tools are 403, each one audited', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['goal_runs', { course: stack.course }],
      ['homework_submission', { submission }],
      ['return_homework', { submission, comment: 'Чужой курс' }],
    ];
    for (const [name, args] of calls) {
      const r = await outsider.callTool(name, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toBe(phraseFor(403));
    }
    expect((await rows('access_denied', 'other@hw')).map((r) => [r.endpoint, r.tool])).toEqual([
      ['/authoring', 'goal_runs'],
      ['/authoring', 'homework_submission'],
      ['/authoring', 'return_homework'],
    ]);
  });
});

describe('fill_document refuses as artifact does (point 14)', () => {
  it('without space, for a course of a suspended organization only: organization_suspended', async () => {
    const a = stack.enrollment.admin;
    await a.upsertUser('vera@hw', 'vera@hw', ['Student']);
    await a.addMember('frozen', 'vera@hw', 'member');
    await a.setSuspended('frozen', false);
    await a.assignCourse('frozen', 'vera@hw', stack.course, { mandatory: false });
    await a.setSuspended('frozen', true);
    const vera = await connectAgent('v2', `${edge.url}/mcp`, (await a.issueToken('vera@hw')).token);
    try {
      const args = { course: stack.course, artifact: 'agreements_log' };
      const filled = await vera.callTool('fill_document', args);
      expect(filled.structuredContent).toMatchObject({
        ok: false,
        error: { code: 'organization_suspended', organization: 'frozen' },
      });
      expect(refusalCode(await vera.callTool('artifact', args))).toBe('organization_suspended');
    } finally {
      await vera.close();
    }
  });

  it('course_not_in_space names personal among the spaces where the course is', async () => {
    const a = stack.enrollment.admin;
    await a.upsertOrganization('empty', 'Пустая');
    await a.addMember('empty', 'anna@hw', 'member');
    const reply = await student.callTool('fill_document', { course: stack.course, space: 'empty' });
    expect(reply.structuredContent).toMatchObject({
      ok: false,
      error: { code: 'course_not_in_space', space: 'empty', available: ['acme', 'personal'] },
    });
    // Naming personal does work there.
    expect(data(await student.callTool('fill_document', { course: stack.course, space: 'personal' })).space).toBe(
      'personal',
    );
  });
});

describe('the author prompt (point 17)', () => {
  it('names the homework review tools and the --attach step of an announced course', async () => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${edge.url}/authoring`), {
        requestInit: { headers: { Authorization: `Bearer ${tokens['curator@hw']}` } },
      }),
    );
    const got = await client.getPrompt({ name: 'author' });
    await client.close();
    const prompt = (got.messages[0].content as { text: string }).text;
    for (const tool of [
      'homework_queue',
      'homework_submission',
      'return_homework',
      'accept_homework',
      'cancel_acceptance',
    ]) {
      expect(prompt).toContain(tool);
    }
    expect(prompt).toMatch(/--attach <id курса>[\s\S]*course_not_released/);
  });
});
