import { createHash } from 'node:crypto';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHomeworkStack } from '../services/homework/test/support/stack.ts';
import { type AgentClient, connectAgent, data, text } from './support/clients.ts';
import { startLessons } from './support/lessons.ts';
import { startEdge } from './support/stack.ts';
import { passLesson, quizKey } from './support/teach.ts';

// A homework's whole life as agents drive it through the edge: the student's agent passes the
// lesson (the real lessons service: start_lesson, mark_goal, complete_lesson; its lesson_passed
// event assigns the homework), the student hands in text and then files from the window, the
// curator returns it with a comment, the student's next start_lesson (lessons asking homework for
// homework.lesson_context) learns of it, the student resubmits, the curator accepts, and the
// answer is closed — every version stays readable. Before that, update_artifact mid-session: the
// lesson's objectives from lessons, and none without a session or with lessons down.
let env: TestEnv;
let stack: Awaited<ReturnType<typeof startHomeworkStack>>;
let lessons: Awaited<ReturnType<typeof startLessons>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let student: AgentClient;
let curator: AgentClient;

beforeAll(async () => {
  env = await createTestEnv('homework-e2e');
  // Generous timeouts of the optional contexts: the machine is shared, and a late answer would
  // read as a missing field.
  stack = await startHomeworkStack(env, { PROGRESS_TIMEOUT_MS: '1000' });
  lessons = await startLessons(env, { CONTEXT_TIMEOUT_MS: '1000' });
  edge = await startEdge(env, { REQUEST_TIMEOUT_MS: '4000' });
  const a = stack.enrollment.admin;
  student = await connectAgent('v1', `${edge.url}/mcp`, (await a.issueToken('anna@hw')).token);
  curator = await connectAgent('v2', `${edge.url}/authoring`, (await a.issueToken('curator@hw')).token);
}, 30_000);

afterAll(async () => {
  await student?.close();
  await curator?.close();
  await edge?.close();
  await lessons?.close();
  await stack?.close();
  await env?.cleanup();
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const protocol = Buffer.from('%PDF-1.7\nПротокол встречи со спонсором\n');

type Objective = { key: string; title?: string; status: string };

describe('update_artifact mid-session: the lesson progress by objectives', () => {
  const write = (fields: Record<string, string>) =>
    student.callTool('update_artifact', {
      course: stack.course,
      artifact: 'agreements_log',
      key: 'team',
      space: 'acme',
      fields,
    });

  it('without a session in the space the reply has no objectives', async () => {
    const reply = data(await write({ lead: 'Аня' }));
    expect(reply).toMatchObject({ space: 'acme', key: 'team', blocks_total: 2, blocks_filled: 1 });
    expect(reply).not.toHaveProperty('objectives');
  });

  it('with an open session after some mark_goal calls it carries the objective statuses, without items', async () => {
    const started = data(await student.callTool('start_lesson', { lesson: stack.lesson('l-text'), space: 'acme' }));
    const session = started.session as string;
    expect(started.space).toBe('acme');
    const fresh = data(await write({ size: '7', split: 'две команды по три' }));
    expect(fresh.objectives).toEqual([
      { key: 'o-l-text', title: 'Цель урока Текстовая домашка', status: 'not_started' },
      { key: 'p-l-text', title: 'Практика урока Текстовая домашка', status: 'not_started' },
    ]);
    for (const goal of ['term:T1', 'choice:C1']) {
      data(
        await student.callTool('mark_goal', { session, goal, status: 'done', evidence: `Ученица показала ${goal}` }),
      );
    }
    const result = await write({ lead: 'Аня Петрова' });
    const reply = data(result);
    expect(reply.objectives).toEqual([
      { key: 'o-l-text', title: 'Цель урока Текстовая домашка', status: 'covered' },
      { key: 'p-l-text', title: 'Практика урока Текстовая домашка', status: 'touched' },
    ]);
    // The same statuses start_lesson's lesson_map shows; items never come.
    const map = data(await student.callTool('start_lesson', { lesson: stack.lesson('l-text'), space: 'acme' }))
      .lesson_map as Objective[];
    expect(map.map((o) => [o.key, o.status])).toEqual((reply.objectives as Objective[]).map((o) => [o.key, o.status]));
    expect(text(result)).toContain('"objectives"');
    expect(text(result)).not.toContain('term:T1');
  });

  it('with lessons too slow (its sessions table locked) the write answers without objectives', async () => {
    let elapsed = 0;
    let reply: Record<string, unknown> = {};
    await lessons.db.transaction().execute(async (trx) => {
      await sql`lock table sessions in access exclusive mode`.execute(trx);
      const t = performance.now();
      reply = data(await write({ lead: 'Аня Смирнова' }));
      elapsed = performance.now() - t;
    });
    expect(reply).toMatchObject({ key: 'team', filled: true });
    expect(reply).not.toHaveProperty('objectives');
    // PROGRESS_TIMEOUT_MS is 1000 here: the write waited that long for lessons, not for the lock.
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(3000);
    // Once lessons answers again, so do the objectives.
    expect(data(await write({ lead: 'Аня' })).objectives).toHaveLength(2);
  });

  it('with the lessons service stopped the write still succeeds, without objectives', async () => {
    await lessons.stop();
    try {
      const result = await write({ lead: 'Аня' });
      const reply = data(result);
      expect(reply).toMatchObject({ key: 'team', filled: true, created: [], empty_cells: [] });
      expect(reply).not.toHaveProperty('objectives');
      const doc = data(
        await student.callTool('artifact', { course: stack.course, artifact: 'agreements_log', space: 'acme' }),
      ) as { artifact: { blocks: Array<{ key: string; values?: Record<string, string> }> } };
      expect(doc.artifact.blocks.find((b) => b.key === 'team')?.values?.lead).toBe('Аня');
    } finally {
      await lessons.restart();
    }
  });
});

describe('homework through the edge', () => {
  let lesson: string;
  let submission: string;

  it('the student passes the lesson and the homework is assigned in the session space', async () => {
    lesson = stack.lesson('l-both');
    // Nothing is assigned before the lesson is passed.
    expect(data(await student.callTool('my_homework', { course: stack.course, space: 'acme' })).items).toEqual([]);
    const passed = await passLesson(student, { lesson, space: 'acme' }, { quiz: quizKey(stack.content) });
    expect(passed.started).toMatchObject({ space: 'acme', lesson: { id: lesson }, homework: expect.anything() });
    expect(passed.closed).toMatchObject({ lesson, status: 'closed' });
    await eventually(async () => {
      const list = data(await student.callTool('my_homework', { course: stack.course, space: 'acme' }));
      expect(list.items).toEqual([expect.objectContaining({ lesson, status: 'Assigned' })]);
    });
  });

  it('the student submits text, then files from the window', async () => {
    const first = data(await student.callTool('submit_homework', { lesson, answer: 'Встречу провёл', space: 'acme' }));
    expect(first).toMatchObject({ space: 'acme', submission: { status: 'Submitted', version: 1 } });
    const files = data(
      await student.callTool('store_homework_file', {
        lesson,
        space: 'acme',
        files: [{ name: 'protocol.pdf', content: protocol.toString('base64') }],
      }),
    ) as { submission: { version: number; answer: string; files: Array<{ name: string }> } };
    expect(files.submission).toMatchObject({ version: 2, answer: 'Встречу провёл' });
    expect(files.submission.files.map((f) => f.name)).toEqual(['protocol.pdf']);
  });

  it('the curator finds it in the queue and returns it with a comment', async () => {
    const queue = data(await curator.callTool('homework_queue', {})) as {
      items: Array<{ submission: string; lesson: string }>;
    };
    const item = queue.items.find((i) => i.lesson === lesson);
    expect(item).toBeDefined();
    submission = String(item?.submission);
    const returned = data(
      await curator.callTool('return_homework', { submission, comment: 'Добавьте, о чём договорились' }),
    );
    expect(returned).toMatchObject({ status: 'Returned', last_comment: 'Добавьте, о чём договорились' });
  });

  it("the student's next start_lesson shows the returned homework", async () => {
    const next = data(await student.callTool('start_lesson', { lesson: stack.lesson('l-files'), space: 'acme' }));
    expect(next).toMatchObject({
      space: 'acme',
      lesson: { id: stack.lesson('l-files') },
      previous_homework: { lesson, status: 'Returned', version: 2, last_comment: 'Добавьте, о чём договорились' },
    });
    const mine = data(await student.callTool('my_homework', { lesson, space: 'acme' }));
    expect(mine.items).toEqual([
      expect.objectContaining({ status: 'Returned', last_comment: 'Добавьте, о чём договорились' }),
    ]);
  });

  it('the student resubmits, the curator accepts, and a further submit is accepted_locked', async () => {
    const again = data(
      await student.callTool('submit_homework', {
        lesson,
        answer: 'Встречу провёл, договорились о бюджете до пятницы',
        space: 'acme',
      }),
    ) as { submission: { version: number; files: unknown[] } };
    expect(again.submission.version).toBe(3);
    expect(again.submission.files).toHaveLength(1);
    const accepted = data(await curator.callTool('accept_homework', { submission }));
    expect(accepted.status).toBe('Accepted');
    const locked = await student.callTool('submit_homework', { lesson, answer: 'ещё правка', space: 'acme' });
    expect(locked.isError).toBe(true);
    expect(text(locked)).toContain('[accepted_locked]');
    const lockedFiles = await student.callTool('store_homework_file', {
      lesson,
      space: 'acme',
      files: [{ name: 'late.pdf', content: protocol.toString('base64') }],
    });
    expect((lockedFiles.structuredContent as { error: { code: string } }).error.code).toBe('accepted_locked');
  });

  it('every version is still readable, files included', async () => {
    const full = data(await curator.callTool('homework_submission', { submission })) as {
      versions: Array<{ version: number; answer: string; files: Array<{ url: string; sha256: string }> }>;
      events: Array<{ event: string; comment: string | null }>;
    };
    expect(full.versions.map((v) => [v.version, v.answer, v.files.length])).toEqual([
      [1, 'Встречу провёл', 0],
      [2, 'Встречу провёл', 1],
      [3, 'Встречу провёл, договорились о бюджете до пятницы', 1],
    ]);
    expect(full.events.map((e) => e.event)).toEqual([
      'assigned',
      'submitted',
      'submitted',
      'returned',
      'submitted',
      'accepted',
    ]);
    const url = new URL(String(full.versions[1]?.files[0]?.url));
    const res = await fetch(`${edge.url}${url.pathname}${url.search}`);
    expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(protocol));
  });
});
