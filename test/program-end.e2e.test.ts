import { homework_queue, return_homework } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHomework } from '../services/homework/test/support/stack.ts';
import { startReporting } from '../services/reporting/test/support/reporting.ts';
import { CHAIN_CURATOR, firstCourse, secondCourse } from './support/chain-courses.ts';
import { type AgentClient, connectAgent, data, type ToolResult, text } from './support/clients.ts';
import { openCourse, startCourses } from './support/courses.ts';
import { type BotStep, followHints } from './support/hint-bot.ts';
import { startLessons } from './support/lessons.ts';
import { startEdge, startEnrollment } from './support/stack.ts';
import { passLesson, quizKey } from './support/teach.ts';

// Issue 31: an ordered program whose first course has a lesson failed for good (the only attempt
// of its required quiz failed) is not a dead end, and homework returned on a course's last lesson
// is surfaced by the hints — through the edge, as a student's agent that follows only the hints.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let courses: Awaited<ReturnType<typeof startCourses>>;
let homework: Awaited<ReturnType<typeof startHomework>>;
let lessons: Awaited<ReturnType<typeof startLessons>>;
let reporting: Awaited<ReturnType<typeof startReporting>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
/** A member of the program with both courses assigned. */
let lena: AgentClient;
/** A member of the program whose second course is the more urgent one. */
let ivan: AgentClient;
/** A student of the first course alone, outside the program. */
let olga: AgentClient;
let x: string;
let y: string;
const agents: AgentClient[] = [];

beforeAll(async () => {
  env = await createTestEnv('program-end');
  enrollment = await startEnrollment(env);
  courses = await startCourses(env);
  homework = await startHomework(env);
  lessons = await startLessons(env, { CONTEXT_TIMEOUT_MS: '2000' });
  reporting = await startReporting(env);
  edge = await startEdge(env, { REQUEST_TIMEOUT_MS: '4000' });
  const a = enrollment.admin;
  await a.upsertUser(CHAIN_CURATOR.user, CHAIN_CURATOR.full_name, ['Course Creator']);
  x = await openCourse(env, enrollment.db, firstCourse(`x-${env.prefix}`), CHAIN_CURATOR);
  y = await openCourse(env, enrollment.db, secondCourse(`y-${env.prefix}`), CHAIN_CURATOR);
  await a.upsertOrganization('acme', 'Акме');
  await a.allowCourse('acme', x);
  await a.allowCourse('acme', y);
  await a.saveProgram('track', 'Переговоры для тимлида', true, [x, y]);
  for (const user of ['lena@chain', 'ivan@chain', 'olga@chain']) await a.upsertUser(user, user, ['Student']);
  for (const user of ['lena@chain', 'ivan@chain']) {
    await a.addMember('acme', user, 'member');
    await a.addProgramMember('track', user);
  }
  // Assigned before they joined the program, as the spec allows (start_lesson's program_order).
  await a.assignCourse('acme', 'lena@chain', x, { mandatory: false });
  await a.assignCourse('acme', 'lena@chain', y, { mandatory: false });
  await a.assignCourse('acme', 'ivan@chain', x, { mandatory: false });
  await a.assignCourse('acme', 'ivan@chain', y, { mandatory: true, deadline: '2099-01-01T00:00:00Z' });
  const connect = async (user: string) => {
    const agent = await connectAgent('v2', `${edge.url}/mcp`, (await a.issueToken(user)).token);
    agents.push(agent);
    return agent;
  };
  lena = await connect('lena@chain');
  ivan = await connect('ivan@chain');
  olga = await connect('olga@chain');
}, 60_000);

afterAll(async () => {
  for (const agent of agents) await agent.close();
  await edge?.close();
  await reporting?.close();
  await lessons?.close();
  await homework?.close();
  await courses?.close();
  await enrollment?.close();
  await env?.cleanup();
});

/** The refusal of a tool result (a tool error whose structuredContent is `{ ok: false, error }`). */
function refusal(result: ToolResult): Record<string, unknown> {
  const sc = result.structuredContent as { ok?: boolean; error?: Record<string, unknown> } | undefined;
  if (!result.isError || sc?.ok !== false || !sc.error) throw new Error(`not a refusal: ${text(result)}`);
  return sc.error;
}

const startedIn = (step: BotStep) =>
  step.tool === 'start_lesson' && !step.result.isError ? (data(step.result).lesson as { course: string }) : null;

describe('a failed required quiz with no attempts left inside an ordered program', () => {
  it('a bot that follows only the hints fails the first course for good and goes on to the next course', async () => {
    // The student knows every answer but those of the final check.
    const steps = await followHints(
      lena,
      { tool: 'start_lesson', args: {} },
      {
        answer: (q) => (q.id.startsWith('x3-') ? 'B' : 'A'),
        stop: (step) => startedIn(step)?.course === y,
      },
    );
    const calls = steps.map((s) => `${s.tool}${s.result.isError ? '!' : ''}`);
    // No refusal on the way: every hint named a call that worked.
    expect(calls.filter((c) => c.endsWith('!'))).toEqual([]);
    const failed = steps.find((s) => s.tool === 'submit_answer' && data(s.result).finished === true);
    const reply = data(failed?.result as ToolResult);
    expect(reply.result).toMatchObject({ passed: false, attempts_left: 0, retry_after: null });
    expect(reply.next).toContain('урок больше не зачесть');
    expect(reply.next).toContain(`start_lesson {"course":"${y}"}`);
    // The call after the failure is the one the hint named, and it opened the next course's first lesson.
    const last = steps.at(-1) as BotStep;
    expect(last.args).toEqual({ course: y });
    expect(data(last.result).lesson).toMatchObject({ course: y, key: 'y1' });
    expect(
      steps.filter((s) => startedIn(s)?.course === x).map((s) => (data(s.result).lesson as { key: string }).key),
    ).toEqual(['x1', 'x2', 'x3']);
  });

  it('every tool says the same: the first course is finished with a lesson failed, the next is open', async () => {
    // The lists follow lessons' events.
    const mine = await eventually(async () => {
      const list = data(await lena.callTool('list_my_courses', {})).courses as Array<Record<string, unknown>>;
      const first = list.find((c) => c.course === x);
      if (!first?.finished) throw new Error('not finished yet');
      return list;
    });
    expect(mine.find((c) => c.course === x)).toMatchObject({
      lessons_total: 3,
      lessons_completed: 2,
      lessons_failed: 1,
      finished: true,
      next_lesson: null,
    });
    const second = mine.find((c) => c.course === y) as Record<string, unknown>;
    expect(second.locked_by).toBeUndefined();
    expect(second.next_lesson).toMatchObject({ id: `${y}.y1` });

    const progress = await eventually(async () => {
      const p = data(await lena.callTool('get_my_progress', {}));
      const row = (p.courses as Array<Record<string, unknown>>).find((c) => c.course === x);
      if (!row?.finished) throw new Error('not finished yet');
      return row;
    });
    expect(progress).toMatchObject({ lessons_passed: 2, lessons_failed: 1, finished: true, completed: false });
    expect(progress.progress).toBeCloseTo(2 / 3, 2);

    const outline = data(await lena.callTool('course_outline', { course: x }));
    const rows = (outline.chapters as Array<{ lessons: Array<Record<string, unknown>> }>).flatMap((c) => c.lessons);
    expect(rows.map((l) => [l.key, l.completed, l.failed, l.current])).toEqual([
      ['x1', true, false, false],
      ['x2', true, false, false],
      ['x3', false, true, false],
    ]);
    expect(data(await lena.callTool('course_outline', { course: y })).locked_by).toBeNull();

    // start_lesson with the course: nothing to study there, and the refusal names the next course.
    const nothing = refusal(await lena.callTool('start_lesson', { course: x }));
    expect(nothing).toMatchObject({
      code: 'nothing_to_study',
      course: x,
      next_course: { course: y, enrolled: true, program_title: 'Переговоры для тимлида' },
    });
    expect(nothing.message).toContain(`start_lesson {"course":"${y}"}`);
    // The failed lesson reopened by its id: no next step, and next names the same call.
    const again = data(await lena.callTool('start_lesson', { lesson: `${x}.x3` }));
    expect(again.next_step).toBeNull();
    expect(again.next).toContain(`start_lesson {"course":"${y}"}`);
    const exhausted = refusal(await lena.callTool('request_quiz', { session: again.session }));
    expect(exhausted).toMatchObject({ code: 'quiz_attempts_exhausted', attempts_used: 1 });
    expect(exhausted.message).toContain(`start_lesson {"course":"${y}"}`);
    // Without arguments: the next course.
    expect(data(await lena.callTool('start_lesson', {})).lesson).toMatchObject({ course: y });
  });

  it('program_order still holds a course whose previous course has lessons to study', async () => {
    const locked = refusal(await ivan.callTool('start_lesson', { course: y }));
    expect(locked).toMatchObject({ code: 'program_order', program: 'track', previous: { course: x } });
    expect(
      (data(await ivan.callTool('list_my_courses', {})).courses as Array<Record<string, unknown>>).find(
        (c) => c.course === y,
      ),
    ).toMatchObject({ locked_by: { course: x }, finished: false });
    // Without arguments the more urgent, locked course gives way to the one the program puts first.
    expect(data(await ivan.callTool('start_lesson', {})).lesson).toMatchObject({ course: x, key: 'x1' });
  });
});

describe("homework returned on a course's last lesson", () => {
  it('is surfaced by start_lesson and nothing_to_study, and the bot follows it to my_homework', async () => {
    await eventually(async () => data(await olga.callTool('enroll', { course: x })));
    const key = quizKey(firstCourse(`x-${env.prefix}`));
    for (const lesson of ['x1', 'x2', 'x3']) await passLesson(olga, { lesson: `${x}.${lesson}` }, { quiz: key });
    const last = `${x}.x3`;
    data(await olga.callTool('submit_homework', { lesson: last, answer: 'Применила на встрече с подрядчиком' }));
    const queue = await env.bus.request(homework_queue, CHAIN_CURATOR, { course: x });
    if (!queue.ok) throw new Error(queue.error.code);
    const item = queue.data.items.find((i) => i.lesson === last && i.student === 'olga@chain');
    const returned = await env.bus.request(return_homework, CHAIN_CURATOR, {
      submission: item?.submission as string,
      comment: 'Добавьте, что изменилось после встречи',
    });
    expect(returned).toMatchObject({ ok: true, data: { status: 'Returned' } });

    // The course has nothing left to study: the refusal names the returned homework and how to reach it.
    const nothing = refusal(await olga.callTool('start_lesson', { course: x }));
    expect(nothing).toMatchObject({
      code: 'nothing_to_study',
      returned_homework: [
        { lesson: last, status: 'Returned', last_comment: 'Добавьте, что изменилось после встречи', space: 'personal' },
      ],
    });
    expect(nothing.message).toContain(`my_homework {"lesson":"${last}"}`);
    // A lesson of the course reopened: returned_homework beside previous_homework, and next says so.
    const review = data(await olga.callTool('start_lesson', { lesson: `${x}.x1` }));
    expect(review.returned_homework).toMatchObject([{ lesson: last, status: 'Returned' }]);
    expect(review.next).toContain('вернул на доработку');
    expect(review.next).toContain(`my_homework {"lesson":"${last}"}`);

    // The bot without arguments: nothing to study, and the hint leads it to the homework.
    const steps = await followHints(olga, { tool: 'start_lesson', args: {} }, { answer: () => 'A' });
    expect(steps.map((s) => s.tool)).toEqual(['start_lesson', 'my_homework']);
    expect(refusal(steps[0]?.result as ToolResult)).toMatchObject({ code: 'nothing_to_study' });
    expect(data(steps[1]?.result as ToolResult).submission).toMatchObject({
      status: 'Returned',
      last_comment: 'Добавьте, что изменилось после встречи',
    });

    // Reworked and handed in again: nothing is waiting any more.
    data(await olga.callTool('submit_homework', { lesson: last, answer: 'Встреча прошла короче, срок сдвинули' }));
    const after = refusal(await olga.callTool('start_lesson', { course: x }));
    expect(after.code).toBe('nothing_to_study');
    expect(after.returned_homework).toBeUndefined();
  });
});
