import { resolve } from 'node:path';
import { releaseContent } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data, type ToolResult, text } from './support/clients.ts';
import { startCourses } from './support/courses.ts';
import { EXAMPLES, publishMap, startLessons } from './support/lessons.ts';
import { startEdge, startEnrollment } from './support/stack.ts';
import { answerQuiz, type QuizQuestion as Question, type QuizKey, quizKey } from './support/teach.ts';

// An agent that has only the MCP edge enrolls a student in the demo course and teaches every
// lesson to the end: marks every required item with evidence, fails a quiz once and meets
// retry_too_soon, passes it, closes lessons without a required quiz, and finishes the course.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let courses: Awaited<ReturnType<typeof startCourses>>;
let lessons: Awaited<ReturnType<typeof startLessons>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let agent: AgentClient;
let course: string;
/** What the student knows: the right option of each question (read from the release, as the student would answer). */
let rightAnswers: QuizKey;

beforeAll(async () => {
  env = await createTestEnv('lessons-e2e');
  enrollment = await startEnrollment(env);
  courses = await startCourses(env);
  lessons = await startLessons(env);
  edge = await startEdge(env);
  const published = await publishMap(env.bus, resolve(EXAMPLES, 'negotiation-basics'));
  course = published.course;
  const content = await env.bus.request(releaseContent, null, { course });
  if (!content.ok) throw new Error(content.error.code);
  rightAnswers = quizKey(content.data.content);
  await enrollment.admin.upsertUser('olga@test.studium', 'Ольга Ученица', ['Student']);
  agent = await connectAgent('v2', `${edge.url}/mcp`, (await enrollment.admin.issueToken('olga@test.studium')).token);
});

afterAll(async () => {
  await agent?.close();
  await edge?.close();
  await lessons?.close();
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

/** Answers every question of an attempt: wrong ones for `wrong`, right ones otherwise. Returns the result. */
const answerAll = (attempt: string, first: Question, wrong: boolean) =>
  answerQuiz(agent, attempt, first, rightAnswers, { wrong });

describe('an agent teaches the demo course from enrollment to the end', () => {
  it('enrolls the student', async () => {
    const enrolled = await eventually(async () => data(await agent.callTool('enroll', { course })));
    expect(enrolled).toMatchObject({ course, first_lesson: { title: 'Переговоры, которые вы уже ведёте' } });
  });

  it('teaches every lesson', async () => {
    const passedVia: Record<string, string> = {};
    let failedOnce = false;
    for (let n = 0; n < 5; n++) {
      const start = data(await agent.callTool('start_lesson', n === 0 ? {} : { frame: false }));
      const lesson = start.lesson as { id: string; key: string };
      expect(start.start).toEqual({ opening: n === 0 ? 'first_in_course' : 'new_lesson' });
      expect(start.teaching_rules).toBeTruthy();
      const session = start.session as string;
      let step = start.next_step as { kind: string; goal?: string } | null;
      // the agent follows next_step: item details, then a mark with evidence
      while (step?.kind === 'goal') {
        const item = data(await agent.callTool('lesson_item', { session, goal: step.goal }));
        expect(item.details).toBeTruthy();
        const marked = data(
          await agent.callTool('mark_goal', {
            session,
            goal: step.goal,
            status: 'done',
            evidence: `Ученица показала «${(item.goal as { title: string }).title}» на своих переговорах о сроках`,
            resume_from: `Продолжить после пункта ${step.goal}`,
          }),
        );
        step = marked.next_step as typeof step;
      }
      const quiz = start.quiz as { required: boolean };
      if (step?.kind === 'quiz') {
        expect(quiz.required).toBe(true);
        const q = data(await agent.callTool('request_quiz', { session }));
        if (!failedOnce) {
          failedOnce = true;
          const failed = await answerAll(q.attempt as string, q.question as Question, true);
          expect(failed.result).toMatchObject({ passed: false });
          const soon = refusal(await agent.callTool('request_quiz', { session }));
          expect(soon).toMatchObject({ code: 'retry_too_soon' });
          expect(String(soon.retry_after)).toMatch(/T.*(Z|[+-]\d\d:\d\d)$/);
          // the pause passes
          await sql`update quiz_attempts set finished_at = finished_at - interval '1 day'`.execute(lessons.db);
          const again = data(await agent.callTool('request_quiz', { session }));
          const passed = await answerAll(again.attempt as string, again.question as Question, false);
          expect(passed.result).toMatchObject({ passed: true, score: 1, session_status: 'closed' });
        } else {
          const passed = await answerAll(q.attempt as string, q.question as Question, false);
          expect(passed.result).toMatchObject({ passed: true });
          expect(passed.teaching_rules).toBeTruthy();
        }
        passedVia[lesson.key] = 'quiz';
      } else {
        expect(step).toEqual({ kind: 'complete' });
        const done = data(await agent.callTool('complete_lesson', { session }));
        expect(done.status).toBe('closed');
        expect(done.teaching_rules).toBeTruthy();
        passedVia[lesson.key] = 'complete';
      }
    }
    expect(passedVia).toEqual({
      'why-prepare': 'complete',
      interests: 'quiz',
      batna: 'quiz',
      opening: 'complete',
      closing: 'complete',
    });
  });

  it('the course is finished: nothing left to study, every lesson passed in the outline and the course list', async () => {
    expect(refusal(await agent.callTool('start_lesson', { course }))).toMatchObject({
      code: 'nothing_to_study',
      course,
    });
    const outline = data(await agent.callTool('course_outline', { course }));
    const all = (
      outline.chapters as Array<{ lessons: Array<{ completed: boolean; objectives: Array<{ status: string }> }> }>
    ).flatMap((c) => c.lessons);
    expect(all.every((l) => l.completed && l.objectives.every((o) => o.status === 'covered'))).toBe(true);
    await lessons.app.flush();
    await eventually(async () => {
      const mine = data(await agent.callTool('list_my_courses', {}));
      const c = (mine.courses as Array<{ course: string; lessons_completed: number; lessons_total: number }>).find(
        (x) => x.course === course,
      );
      expect(c).toMatchObject({ lessons_completed: 5, lessons_total: 5 });
    });
  });
});
