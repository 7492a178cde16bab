import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data } from './support/clients.ts';
import { scriptedTutor } from './support/scripted-tutor.ts';
import { startTutorStack, tutorTurn } from './support/tutor.ts';

// The platform's tutor (issue 23) through its API: a scripted tutor model teaches a lesson with
// the real lesson tools, run by the edge for the signed-in student in channel web.
let stack: Awaited<ReturnType<typeof startTutorStack>>;

beforeAll(async () => {
  stack = await startTutorStack('tutor-e2e', { lessons: { WEB_DEMO_LESSONS: '2' } });
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

const text = (events: Array<{ type: string; content?: unknown }>) =>
  events
    .filter((e) => e.type === 'content')
    .map((e) => e.content)
    .join('');

describe('the tutor teaches a lesson in the web chat', () => {
  it('starts the lesson in channel web, marks the items, asks the quiz, answers it next turn, passes the lesson', async () => {
    const { token, agent } = await stack.student('tutor-a@test.studium');
    const lesson = `${stack.course}.interests`;
    stack.llm.script(scriptedTutor({ start: { lesson } }));
    const first = await tutorTurn(stack.url, token, { message: 'Здравствуйте!', lesson });
    expect(first.status).toBe(200);
    expect(first.events.at(-1)).toEqual({ type: 'done' });
    const conversation = first.events[0]?.conversation_id as string;
    const started = first.events.find((e) => e.type === 'tool' && e.tool === 'start_lesson') as Record<string, any>;
    expect(started.lesson).toMatchObject({ number: 2, total: expect.any(Number), course_title: expect.any(String) });
    expect(started.lesson.demo_lessons_left).toBe(1);
    expect(first.events.filter((e) => e.tool === 'mark_goal')).toHaveLength(5);
    let question = first.events.find((e) => e.tool === 'request_quiz')?.question as { id: string; text: string } | null;
    expect(question?.text).toBeTruthy();
    expect(text(first.events)).toContain(question?.text);

    // The model saw the three rule packs in its instructions and no teaching_rules in any tool reply.
    const req = stack.llm.requests.at(-1)!.body;
    const system = req.messages[0]?.content ?? '';
    expect(system).toContain('старт и разбор');
    expect(system).toContain('квиз');
    expect(system).toContain('закрытие');
    for (const m of req.messages.filter((m) => m.role === 'tool')) expect(m.content).not.toContain('teaching_rules');
    expect(req.tools?.map((t) => t.function.name).sort()).not.toContain('fill_document');

    let turns = 0;
    let last = first;
    while (question && turns++ < 10) {
      const right = stack.key.get(question.id)!.right;
      last = await tutorTurn(stack.url, token, { message: right, conversation_id: conversation });
      expect(last.status).toBe(200);
      const answered = last.events.find((e) => e.tool === 'submit_answer') as Record<string, any>;
      expect(answered.verdict.correct).toBe(true);
      question = answered.question;
    }
    expect(text(last.events)).toContain('урок пройден');

    // The agent channel sees the marks, the quiz attempt used and the passed lesson.
    const outline = data(await agent.callTool('course_outline', { course: stack.course })) as any;
    const taught = outline.chapters[0].lessons.find((l: { key: string }) => l.key === 'interests');
    expect(taught.completed).toBe(true);
    expect(taught.objectives.map((o: { status: string }) => o.status)).toEqual(['covered', 'covered']);
    const again = data(await agent.callTool('start_lesson', { lesson })) as any;
    expect(again.start.opening).toBe('repeat');
    expect(again.lesson_map.flatMap((o: any) => o.goals.map((g: any) => g.status))).toEqual(Array(5).fill('done'));
    // The quiz attempt was taken in the web session and passed.
    const attempts = await sql<{ passed: boolean; channel: string }>`
      select a.passed, s.channel from quiz_attempts a join sessions s on s.id = a.session_id
      where a.user_id = ${'tutor-a@test.studium'}`.execute(stack.lessons.db);
    expect(attempts.rows).toEqual([{ passed: true, channel: 'web' }]);
    expect(again.teaching_rules).toContain('старт и разбор');
  });
});
