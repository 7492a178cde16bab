import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHomeworkStack } from '../services/homework/test/support/stack.ts';
import { startReporting } from '../services/reporting/test/support/reporting.ts';
import { type AgentClient, connectAgent, data, type ToolResult, text } from './support/clients.ts';
import { startLessons } from './support/lessons.ts';
import { startEdge } from './support/stack.ts';
import { passLesson, quizKey } from './support/teach.ts';

// Issue 19 through the edge: where the spec names its own code for a missing or bad parameter,
// that code wins over invalid_arguments; choose refuses a card without a question or buttons.
let env: TestEnv;
let stack: Awaited<ReturnType<typeof startHomeworkStack>>;
let lessons: Awaited<ReturnType<typeof startLessons>>;
let reporting: Awaited<ReturnType<typeof startReporting>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let student: AgentClient;
let manager: AgentClient;

beforeAll(async () => {
  env = await createTestEnv('lesson-fidelity');
  stack = await startHomeworkStack(env, { PROGRESS_TIMEOUT_MS: '1000' });
  lessons = await startLessons(env, { CONTEXT_TIMEOUT_MS: '1000' });
  reporting = await startReporting(env);
  edge = await startEdge(env, { REQUEST_TIMEOUT_MS: '4000' });
  student = await connectAgent('v1', `${edge.url}/mcp`, (await stack.enrollment.admin.issueToken('anna@hw')).token);
  manager = await connectAgent('v2', `${edge.url}/mcp`, (await stack.enrollment.admin.issueToken('mira@hw')).token);
}, 30_000);

afterAll(async () => {
  await student?.close();
  await manager?.close();
  await edge?.close();
  await reporting?.close();
  await lessons?.close();
  await stack?.close();
  await env?.cleanup();
});

function refusal(result: ToolResult): Record<string, unknown> {
  const sc = result.structuredContent as { ok?: boolean; error?: Record<string, unknown> } | undefined;
  if (!result.isError || sc?.ok !== false || !sc.error) throw new Error(`not a refusal: ${text(result)}`);
  return sc.error;
}

describe("the spec's own code wins over invalid_arguments", () => {
  it('submit_answer without student_words: student_words_required', async () => {
    const passed = await passLesson(student, { lesson: stack.lesson('l-text'), space: 'acme' }, {});
    expect(passed.via).toBe('complete');
    const r = await student.callTool('submit_answer', { attempt: 'att_any', question: 'Q1', answer: 'V1' });
    expect(refusal(r)).toMatchObject({ code: 'student_words_required' });
  });

  it('store_homework_file without files: file_missing', async () => {
    const lesson = stack.lesson('l-files');
    await passLesson(student, { lesson, space: 'acme' }, { quiz: quizKey(stack.content) });
    const r = await student.callTool('store_homework_file', { lesson, space: 'acme' });
    expect(refusal(r)).toMatchObject({ code: 'file_missing' });
  });

  const write = (args: Record<string, unknown>) =>
    student.callTool('update_artifact', { course: stack.course, artifact: 'agreements_log', space: 'acme', ...args });

  it('update_artifact with clear: "yes": artifact_invalid_value with param', async () => {
    expect(refusal(await write({ key: 'team', clear: 'yes' }))).toMatchObject({
      code: 'artifact_invalid_value',
      param: 'clear',
    });
  });

  it('update_artifact with a 40,001-character cell: artifact_invalid_value with the field and max 4000', async () => {
    expect(refusal(await write({ key: 'team', fields: { lead: 'я'.repeat(40_001) } }))).toMatchObject({
      code: 'artifact_invalid_value',
      field: 'lead',
      max: 4000,
    });
    expect(refusal(await write({ key: 'agreements', rows: [{ topic: 'я'.repeat(40_001) }] }))).toMatchObject({
      code: 'artifact_invalid_value',
      column: 'topic',
      max: 4000,
    });
    // Nothing was written.
    const doc = data(
      await student.callTool('artifact', { course: stack.course, artifact: 'agreements_log', space: 'acme' }),
    ) as { artifact: { blocks: Array<{ key: string; items?: unknown[]; values?: Record<string, string> }> } };
    expect(doc.artifact.blocks.find((b) => b.key === 'team')?.values?.lead).toBeUndefined();
    expect(doc.artifact.blocks.find((b) => b.key === 'agreements')?.items ?? []).toEqual([]);
  });
});

describe('previous_homework', () => {
  it('is null when the student never did the previous lesson, its real state when they did', async () => {
    // l-files comes after l-both, which this student never started.
    const files = data(await student.callTool('start_lesson', { lesson: stack.lesson('l-files'), space: 'acme' }));
    expect(files.previous_homework).toBeNull();
    const mine = data(await student.callTool('my_homework', { course: stack.course, space: 'acme' }));
    expect((mine.items as Array<{ lesson: string }>).map((i) => i.lesson)).not.toContain(stack.lesson('l-both'));
    // l-none comes after l-files, passed above: its homework is assigned.
    const none = data(await student.callTool('start_lesson', { lesson: stack.lesson('l-none'), space: 'acme' }));
    expect(none.previous_homework).toMatchObject({ lesson: stack.lesson('l-files'), status: 'Assigned' });
  });
});

describe('choose', () => {
  it.each([
    [{ prompt: '', options: ['Да', 'Нет'] }, ['prompt']],
    [{ prompt: '   ', options: ['Да'] }, ['prompt']],
    [{ prompt: 'С чего начнём?', options: [] }, ['options']],
    [{ prompt: 'С чего начнём?', options: ['  ', ''] }, ['options']],
  ])('refuses %j as invalid_arguments naming %j', async (args, fields) => {
    const e = refusal(await student.callTool('choose', args));
    expect(e.code).toBe('invalid_arguments');
    expect((e.fields as Array<{ field: string }>).map((f) => f.field)).toEqual(fields);
  });

  it('still offers a real choice', async () => {
    expect(
      data(await student.callTool('choose', { prompt: 'С чего начнём?', options: ['Тема', 'Задача'] })),
    ).toMatchObject({ options: ['Тема', 'Задача'] });
  });
});

describe('get_my_progress and org_report', () => {
  type Progress = {
    courses: Array<{
      course: string;
      documents: Array<{ artifact: string; blocks_total: number; blocks_filled: number }>;
    }>;
    recent_sessions: Array<{ session: string; status: string }>;
  };
  const progress = async (space: string) =>
    data(await student.callTool('get_my_progress', { space })) as unknown as Progress;
  const documents = async (space: string) =>
    (await progress(space)).courses.find((c) => c.course === stack.course)?.documents;

  it('recent_sessions carry the session status: closed, open, abandoned', async () => {
    const first = data(await student.callTool('start_lesson', { lesson: stack.lesson('l-none'), space: 'acme' }));
    // A day later the open session is left behind: the next start replaces it.
    await sql`update sessions set last_activity_at = last_activity_at - interval '2 days' where id = ${first.session}`.execute(
      lessons.db,
    );
    const second = data(await student.callTool('start_lesson', { lesson: stack.lesson('l-none'), space: 'acme' }));
    expect(second.session).not.toBe(first.session);
    const closed = (await lessons.db.selectFrom('sessions').select('id').where('status', '=', 'closed').execute()).map(
      (r) => r.id,
    );
    expect(closed.length).toBeGreaterThan(0);
    await eventually(async () => {
      const byId = new Map((await progress('acme')).recent_sessions.map((s) => [s.session, s.status]));
      expect(byId.get(first.session as string)).toBe('abandoned');
      expect(byId.get(second.session as string)).toBe('open');
      for (const id of closed) expect(byId.get(id)).toBe('closed');
    });
  });

  it('documents count the course document «0 of 2» before the first cell, in get_my_progress and org_report', async () => {
    await eventually(async () =>
      expect(await documents('acme')).toEqual([
        expect.objectContaining({ artifact: 'agreements_log', blocks_total: 2, blocks_filled: 0 }),
      ]),
    );
    const report = data(await manager.callTool('org_report', { space: 'acme' })) as {
      rows: Array<{ user: string; course: string; document: { blocks_total: number; blocks_filled: number } }>;
    };
    expect(report.rows.find((r) => r.user === 'anna@hw' && r.course === stack.course)?.document).toMatchObject({
      blocks_total: 2,
      blocks_filled: 0,
    });
  });

  it('the personal space reports the personal document, not the organization’s', async () => {
    const written = await student.callTool('update_artifact', {
      course: stack.course,
      artifact: 'agreements_log',
      key: 'team',
      space: 'personal',
      fields: { lead: 'Аня' },
    });
    expect(written.isError).toBeFalsy();
    await eventually(async () =>
      expect(await documents('personal')).toEqual([expect.objectContaining({ blocks_total: 2, blocks_filled: 1 })]),
    );
    expect(await documents('acme')).toEqual([expect.objectContaining({ blocks_total: 2, blocks_filled: 0 })]);
  });
});
