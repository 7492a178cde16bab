import type { Release } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data, text } from '../../../test/support/clients.ts';
import { startLessons } from '../../../test/support/lessons.ts';
import { startEdge } from '../../../test/support/stack.ts';
import { type PassedLesson, passLesson, quizKey } from '../../../test/support/teach.ts';
import { startHomeworkStack } from '../../homework/test/support/stack.ts';
import { startReporting } from './support/reporting.ts';

// A student studies; the manager sees it through the edge with real MCP clients. Every producer is
// the real service: enrollment (its admin emits the enrollment events), courses (the course card),
// lessons (the student's agent passes a lesson with a quiz: start_lesson, mark_goal,
// request_quiz/submit_answer), homework (submit_homework, update_artifact). What the student said
// — the evidence of a mark, the words of an answer, the document's text — never reaches the reports.
let env: TestEnv;
let reporting: Awaited<ReturnType<typeof startReporting>>;
let stack: Awaited<ReturnType<typeof startHomeworkStack>>;
let lessons: Awaited<ReturnType<typeof startLessons>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let student: AgentClient;
let manager: AgentClient;
const SECRET = ['Свидетельство: ученик объяснил термин своими словами', 'Мой ответ на вопрос 2', 'заметка о студенте'];

/** The first lesson of the homework fixture gets a required quiz of five questions (pass at 0.7). */
function withQuiz(release: Release) {
  const lesson = release.chapters[0]?.lessons[0];
  if (!lesson) throw new Error('the fixture has no lessons');
  lesson.quiz = {
    required: true,
    pass_threshold: 0.7,
    attempts: null,
    pause_minutes: 0,
    questions: [1, 2, 3, 4, 5].map((n) => ({
      key: `q${n}`,
      text: `Вопрос ${n}`,
      objective: lesson.objectives[0]?.key ?? null,
      options: [
        { id: 'a', text: 'Первый вариант' },
        { id: 'b', text: 'Второй вариант' },
      ],
      correct: 'a',
      explanation: 'Пояснение',
    })),
  };
}

beforeAll(async () => {
  env = await createTestEnv('reporting-edge');
  reporting = await startReporting(env);
  stack = await startHomeworkStack(env, {}, withQuiz);
  lessons = await startLessons(env);
  edge = await startEdge(env);
  const a = stack.enrollment.admin;
  await stack.enrollment.app.flush();
  student = await connectAgent('v2', `${edge.url}/mcp`, (await a.issueToken('anna@hw')).token);
  manager = await connectAgent('v1', `${edge.url}/mcp`, (await a.issueToken('mira@hw')).token);
}, 60_000);

afterAll(async () => {
  await student?.close();
  await manager?.close();
  await edge?.close();
  await lessons?.close();
  await stack?.close();
  await reporting?.close();
  await env?.cleanup();
});

describe('a student studies, the manager sees it through the edge', () => {
  it('shows lessons, quiz, homework and document in org_report and student_detail, and nothing of the dialogue', async () => {
    const lesson = stack.lesson('l-text');
    // Four answers of five right: the score is 0.8.
    const key = quizKey(stack.content);
    key.set('q5', { right: 'b', wrong: 'a' });
    const passed: PassedLesson = await passLesson(
      student,
      { lesson, space: 'acme' },
      { evidence: SECRET[0], quiz: key, words: SECRET[1] },
    );
    expect(passed.via).toBe('quiz');
    expect(passed.closed).toMatchObject({ score: 0.8, passed: true });
    await eventually(async () => {
      const mine = data(await student.callTool('my_homework', { lesson, space: 'acme' }));
      expect(mine.items).toEqual([expect.objectContaining({ status: 'Assigned' })]);
    });
    data(await student.callTool('submit_homework', { lesson, answer: 'Договорились о сроках', space: 'acme' }));
    const written = data(
      await student.callTool('update_artifact', {
        course: stack.course,
        artifact: 'agreements_log',
        key: 'team',
        space: 'acme',
        fields: { lead: SECRET[2] },
      }),
    );
    const document = { blocks_total: written.blocks_total, blocks_filled: written.blocks_filled };
    expect(document).toEqual({ blocks_total: 2, blocks_filled: 1 });

    const report = await eventually(async () => {
      const r = await manager.callTool('org_report', {});
      expect(r.isError).toBeFalsy();
      const d = data(r) as { rows: Array<Record<string, unknown>> };
      expect(d.rows[0]?.document).toEqual(document);
      return r;
    });
    expect((data(report) as { rows: unknown[] }).rows).toEqual([
      expect.objectContaining({
        user: 'anna@hw',
        full_name: 'anna@hw',
        organization: 'acme',
        course: stack.course,
        status: 'in_progress',
        progress: 0.25,
        mandatory: true,
        overdue: false,
      }),
    ]);
    const detail = await eventually(async () => {
      const r = await manager.callTool('student_detail', { user: 'anna@hw' });
      expect(r.isError).toBeFalsy();
      expect((data(r) as Record<string, Array<Record<string, unknown>>>).homework?.[0]).toMatchObject({
        status: 'Submitted',
        version: 1,
      });
      return r;
    });
    const d = data(detail) as Record<string, Array<Record<string, unknown>>>;
    expect(d.sessions?.[0]).toMatchObject({ session: passed.session, status: 'passed' });
    expect(d.sessions?.[0]?.objectives).toEqual([
      { objective: 'o-l-text', title: 'Цель урока Текстовая домашка', status: 'covered' },
      { objective: 'p-l-text', title: 'Практика урока Текстовая домашка', status: 'covered' },
    ]);
    expect(d.attempts?.[0]).toMatchObject({
      attempt: passed.attempt,
      number: 1,
      score: 0.8,
      passed: true,
      status: 'Passed',
    });
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
    const refused = await student.callTool('student_detail', { user: 'mira@hw' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('[not_your_student]');
    const missing = await manager.callTool('student_detail', {});
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('[invalid_arguments]');
    const space = await student.callTool('get_my_progress', { space: 'nowhere' });
    expect(text(space)).toContain('[space_not_available]');
  });
});
