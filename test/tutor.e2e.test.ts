import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data } from './support/clients.ts';
import { scriptedTutor } from './support/scripted-tutor.ts';
import { startTutorStack, tutorTurn } from './support/tutor.ts';

// The platform's tutor (issue 23) through its API: a scripted tutor model teaches a lesson with
// the real lesson tools, run by the edge for the signed-in student in channel web.
let stack: Awaited<ReturnType<typeof startTutorStack>>;

beforeAll(async () => {
  // A short silence limit of the model, so a reply that stalls after one piece runs into it here.
  stack = await startTutorStack('tutor-e2e', {
    lessons: { WEB_DEMO_LESSONS: '2' },
    aiChat: { AI_IDLE_TIMEOUT_MS: '2000' },
  });
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
    expect(first.events.at(-1)).toMatchObject({ type: 'done' });
    const conversation = first.events[0]?.conversation_id as string;
    const started = first.events.find((e) => e.type === 'tool' && e.tool === 'start_lesson') as unknown as {
      lesson: { demo_lessons_left: number };
    };
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
    // The lesson is named by its titles; its id is only start_lesson's argument.
    expect(system).toContain(
      'Ученик открыл чат для урока «Позиции и интересы» курса «Рабочие переговоры для тимлида».',
    );
    expect(system).not.toContain(`«${lesson}»`);
    expect(system).toContain(`lesson="${lesson}"`);
    for (const m of req.messages.filter((m) => m.role === 'tool')) expect(m.content).not.toContain('teaching_rules');
    expect(req.tools?.map((t) => t.function.name).sort()).not.toContain('fill_document');

    let turns = 0;
    let last = first;
    while (question && turns++ < 10) {
      const right = stack.key.get(question.id)!.right;
      last = await tutorTurn(stack.url, token, { message: right, conversation_id: conversation });
      expect(last.status).toBe(200);
      const answered = last.events.find((e) => e.tool === 'submit_answer') as unknown as {
        verdict: { correct: boolean };
        question: { id: string; text: string } | null;
      };
      expect(answered.verdict.correct).toBe(true);
      question = answered.question;
    }
    expect(text(last.events)).toContain('урок пройден');
    const listed = await api(`/v1/tutor/conversations`, token);
    expect(listed.items).toMatchObject([
      { id: conversation, lesson, lesson_title: 'Позиции и интересы', course_title: 'Рабочие переговоры для тимлида' },
    ]);

    // The agent channel sees the marks, the quiz attempt used and the passed lesson.
    type Outline = {
      chapters: Array<{ lessons: Array<{ key: string; completed: boolean; objectives: Array<{ status: string }> }> }>;
    };
    const outline = data(await agent.callTool('course_outline', { course: stack.course })) as Outline;
    const taught = outline.chapters[0]?.lessons.find((l) => l.key === 'interests');
    expect(taught?.completed).toBe(true);
    expect(taught?.objectives.map((o) => o.status)).toEqual(['covered', 'covered']);
    type Started = {
      start: { opening: string };
      lesson_map: Array<{ goals: Array<{ status: string }> }>;
      teaching_rules?: string;
    };
    const again = data(await agent.callTool('start_lesson', { lesson })) as Started;
    expect(again.start.opening).toBe('repeat');
    expect(again.lesson_map.flatMap((o) => o.goals.map((g) => g.status))).toEqual(Array(5).fill('done'));
    // The quiz attempt was taken in the web session and passed.
    const attempts = await sql<{ passed: boolean; channel: string }>`
      select a.passed, s.channel from quiz_attempts a join sessions s on s.id = a.session_id
      where a.user_id = ${'tutor-a@test.studium'}`.execute(stack.lessons.db);
    expect(attempts.rows).toEqual([{ passed: true, channel: 'web' }]);
    expect(again.teaching_rules).toContain('старт и разбор');
  });
});

/** A GET of the tutor API with a student's token: the JSON body. */
async function api(path: string, token: string) {
  const res = await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are checked field by field
  return (await res.json()) as any;
}

describe('replies that do not end', () => {
  it('a reply that stalls after one piece ends in the timeout error, is kept with that note, and the model never reads it as its answer', async () => {
    const { token } = await stack.student('tutor-stall@test.studium');
    stack.llm.script({ chunks: ['Думаю над ответом…', ' и вот ответ.'], delayMs: 20_000 });
    const before = stack.llm.requests.length;
    const turn = await tutorTurn(stack.url, token, { message: 'Здравствуйте', lesson: stack.course });
    expect(turn.events.map((e) => e.type)).toEqual(['metadata', 'content', 'error']);
    expect(text(turn.events)).toBe('Думаю над ответом…');
    expect(turn.events.at(-1)?.content).toMatch(/^Модель не ответила вовремя/);
    expect(stack.llm.requests[before]?.aborted).toBe(true);
    const id = turn.events[0]?.conversation_id as string;
    const shown = await api(`/v1/tutor/conversations/${id}/messages`, token);
    expect(shown.items).toEqual([
      { role: 'user', content: 'Здравствуйте' },
      { role: 'assistant', content: 'Думаю над ответом…', note: turn.events.at(-1)?.content },
    ]);

    // The next turn: the model sees the student's two messages and no answer of its own between them.
    stack.llm.script({ chunks: ['Здесь. Начнём.'] });
    const next = await tutorTurn(stack.url, token, { message: 'Вы здесь?', conversation_id: id });
    expect(next.events.at(-1)).toMatchObject({ type: 'done' });
    expect(stack.llm.requests.at(-1)!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Здравствуйте' },
      { role: 'user', content: 'Вы здесь?' },
    ]);
    expect((await api(`/v1/tutor/conversations/${id}/messages`, token)).items.at(-1)).toEqual({
      role: 'assistant',
      content: 'Здесь. Начнём.',
    });
  });

  it('a reply whose model fails is kept with the failure the student read; an empty one with its note alone', async () => {
    const { token } = await stack.student('tutor-fail@test.studium');
    stack.llm.script({ status: 503 });
    const down = await tutorTurn(stack.url, token, { message: 'Привет', lesson: stack.course });
    const id = down.events[0]?.conversation_id as string;
    expect((await api(`/v1/tutor/conversations/${id}/messages`, token)).items.at(-1)).toEqual({
      role: 'assistant',
      content: '',
      note: down.events.at(-1)?.content,
    });
  });
});

/** The tool messages of the model's last request, by the tool that answered. */
function lastToolReplies(): Array<{ name: string; content: string }> {
  const msgs = stack.llm.requests.at(-1)?.body.messages ?? [];
  const names = new Map<string, string>();
  for (const m of msgs) for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
  return msgs
    .filter((m) => m.role === 'tool')
    .map((m) => ({ name: names.get(m.tool_call_id ?? '') ?? '?', content: m.content ?? '' }));
}

describe('the turn rule and the tools the tutor may call', () => {
  it('refuses a submit_answer in the turn its question was issued, before the platform; the next turn answers', async () => {
    const user = 'tutor-b@test.studium';
    const { token } = await stack.student(user);
    const lesson = `${stack.course}.interests`;
    stack.llm.script(scriptedTutor({ start: { lesson }, answerInSameTurn: 'a' }));
    const turn = await tutorTurn(stack.url, token, { message: 'Начнём', lesson });
    expect(turn.events.at(-1)).toMatchObject({ type: 'done' });
    expect(turn.events.some((e) => e.tool === 'submit_answer')).toBe(false);
    const refused = lastToolReplies().filter((r) => r.name === 'submit_answer');
    expect(refused).toHaveLength(1);
    expect(JSON.parse(refused[0]!.content).error.code).toBe('answer_in_next_turn');
    const answers = await sql<{ n: string }>`
      select count(*) as n from quiz_answers q join quiz_attempts a on a.id = q.attempt_id where a.user_id = ${user}`.execute(
      stack.lessons.db,
    );
    expect(Number(answers.rows[0]?.n)).toBe(0);

    const question = turn.events.find((e) => e.tool === 'request_quiz')?.question as { id: string };
    const next = await tutorTurn(stack.url, token, {
      message: stack.key.get(question.id)!.right,
      conversation_id: turn.events[0]?.conversation_id,
    });
    expect(next.events.find((e) => e.tool === 'submit_answer')).toMatchObject({ verdict: { correct: true } });
  });

  it('offers choose as a card for the page; a model calling fill_document or an unknown tool gets a refusal it reads', async () => {
    const { token } = await stack.student('tutor-c@test.studium');
    const lesson = `${stack.course}.why-prepare`;
    stack.llm.script(
      scriptedTutor({
        start: { lesson },
        choose: { prompt: 'С чего начнём?', options: ['Сначала тема', 'Сразу мой случай'] },
      }),
    );
    const turn = await tutorTurn(stack.url, token, { message: 'Привет', lesson });
    expect(turn.events.find((e) => e.tool === 'choose')).toEqual({
      type: 'tool',
      tool: 'choose',
      prompt: 'С чего начнём?',
      options: ['Сначала тема', 'Сразу мой случай'],
      title: null,
    });
    expect(turn.events.at(-1)).toMatchObject({ type: 'done' });

    let asked = 0;
    stack.llm.script(() =>
      asked++ === 0
        ? {
            toolCalls: [
              { name: 'fill_document', arguments: { artifact: 'x' } },
              { name: 'start_lesson', arguments: '{not json' },
            ],
          }
        : { chunks: ['Понял.'] },
    );
    const conversation = turn.events[0]?.conversation_id;
    const bad = await tutorTurn(stack.url, token, {
      message: '«С чего начнём?» — выбираю: Сразу мой случай',
      conversation_id: conversation,
    });
    expect(bad.events.at(-1)).toMatchObject({ type: 'done' });
    const replies = lastToolReplies().slice(-2);
    expect(JSON.parse(replies[0]!.content).error.code).toBe('unknown_tool');
    expect(JSON.parse(replies[1]!.content).error.code).toBe('invalid_arguments');
  });

  it('runs at most 16 calls of one round; the rest come back to the model as too_many_calls', async () => {
    const { token } = await stack.student('tutor-k@test.studium');
    let asked = 0;
    const choose = { name: 'choose', arguments: { prompt: 'Да?', options: ['да'] } };
    stack.llm.script(() => (asked++ === 0 ? { toolCalls: Array(20).fill(choose) } : { chunks: ['Хорошо.'] }));
    const turn = await tutorTurn(stack.url, token, { message: 'Привет', lesson: stack.course });
    expect(turn.events.at(-1)).toMatchObject({ type: 'done' });
    expect(turn.events.filter((e) => e.tool === 'choose')).toHaveLength(16);
    const codes = lastToolReplies().map((r) => JSON.parse(r.content).error?.code ?? 'ok');
    expect(codes).toEqual([...Array(16).fill('ok'), ...Array(4).fill('too_many_calls')]);
  });

  it('ends a turn whose model keeps calling tools after the bounded number of rounds', async () => {
    const { token } = await stack.student('tutor-d@test.studium');
    stack.llm.script({ toolCalls: [{ name: 'choose', arguments: { prompt: 'Ещё?', options: ['да'] } }] });
    const before = stack.llm.requests.length;
    const turn = await tutorTurn(stack.url, token, { message: 'Привет', lesson: stack.course });
    expect(turn.events.at(-1)).toMatchObject({ type: 'error', content: expect.stringContaining('запутался') });
    expect(stack.llm.requests.length - before).toBe(12);
  });

  it('tells the student when the provider refuses (429) or fails (5xx)', async () => {
    const { token } = await stack.student('tutor-e@test.studium');
    stack.llm.script({ status: 429 });
    const limited = await tutorTurn(stack.url, token, { message: 'Привет', lesson: stack.course });
    expect(limited.events.at(-1)).toMatchObject({ type: 'error', content: expect.stringContaining('перегружена') });
    stack.llm.script({ status: 503 });
    const down = await tutorTurn(stack.url, token, { message: 'Привет', lesson: stack.course });
    expect(down.events.at(-1)).toMatchObject({ type: 'error', content: expect.stringContaining('недоступна') });
  });
});

describe('trial lessons of the web chat', () => {
  it('counts the lessons started in the web chat and refuses past the limit with web_demo_exhausted', async () => {
    const { token } = await stack.student('tutor-f@test.studium');
    const startOnly = (lesson: string) => (req: { body: { messages: Array<{ role: string }> } }) =>
      req.body.messages.at(-1)?.role === 'user'
        ? { toolCalls: [{ name: 'start_lesson', arguments: { lesson } }] }
        : { chunks: ['Готово.'] };
    const left: unknown[] = [];
    for (const key of ['why-prepare', 'interests']) {
      const lesson = `${stack.course}.${key}`;
      stack.llm.script(startOnly(lesson));
      const turn = await tutorTurn(stack.url, token, { message: 'Начнём', lesson });
      left.push(
        (turn.events.find((e) => e.tool === 'start_lesson') as unknown as { lesson: { demo_lessons_left: number } })
          .lesson.demo_lessons_left,
      );
    }
    expect(left).toEqual([1, 0]);
    const lesson = `${stack.course}.batna`;
    stack.llm.script(startOnly(lesson));
    const turn = await tutorTurn(stack.url, token, { message: 'Начнём', lesson });
    expect(turn.events.find((e) => e.tool === 'start_lesson')).toEqual({
      type: 'tool',
      tool: 'start_lesson',
      demo_exhausted: { lessons_used: 2, lessons_limit: 2 },
    });
    expect(JSON.parse(lastToolReplies().at(-1)!.content).error.code).toBe('web_demo_exhausted');
  });
});

describe('hostile input on the tutor routes', () => {
  const get = async (path: string, token: string | null) => {
    const res = await fetch(`${stack.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('refuses no token, a bad token, bad bodies and out-of-bound pages before anything is written', async () => {
    const { token } = await stack.student('tutor-g@test.studium');
    const lesson = stack.course;
    expect((await tutorTurn(stack.url, null, { message: 'Привет', lesson })).status).toBe(401);
    expect((await tutorTurn(stack.url, 'not-a-token', { message: 'Привет', lesson })).status).toBe(401);
    expect((await get('/v1/tutor/conversations', null)).status).toBe(401);
    // The caller is checked before the body is read: a stranger's body that is not even JSON is
    // 401, not the parser's 400.
    const stranger = await fetch(`${stack.url}/v1/tutor/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"message": ',
    });
    expect(stranger.status).toBe(401);
    // The page itself is for the signed-in: a visitor without a session goes to /login and back.
    const signedOut = await fetch(`${stack.url}/tutor?lesson=x`, { redirect: 'manual' });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toBe(`/login?next=${encodeURIComponent('/tutor?lesson=x')}`);
    const cases: unknown[] = [
      '{not json',
      { message: 42, lesson },
      { message: 'x'.repeat(20_001), lesson },
      { message: 'Привет', lesson: '../../etc' },
      { message: 'Привет', lesson: 'a'.repeat(500) },
      { message: 'Привет', conversation_id: "1' or '1'='1" },
      { message: 'Привет', lesson: { $ne: 1 } },
    ];
    for (const body of cases) {
      const r = await tutorTurn(stack.url, token, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(422);
    }
    // Within the edge's bounds but past the tutor's: ai-chat refuses it with message_invalid.
    const long = await tutorTurn(stack.url, token, { message: 'я'.repeat(4001), lesson });
    expect(long).toMatchObject({ status: 422, body: { code: 'message_invalid', limit: 4000 } });
    const empty = await tutorTurn(stack.url, token, { message: '   ', lesson });
    expect(empty).toMatchObject({ status: 422, body: { code: 'message_invalid' } });
    const noLesson = await tutorTurn(stack.url, token, { message: 'Привет' });
    expect(noLesson).toMatchObject({ status: 422, body: { code: 'message_invalid' } });
    const big = await fetch(`${stack.url}/v1/tutor/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'x'.repeat(70_000), lesson }),
    });
    expect(big.status).toBe(422);
    expect((await get('/v1/tutor/conversations?page_size=1000', token)).status).toBe(422);
    expect((await get('/v1/tutor/conversations?page=-1', token)).status).toBe(422);
    const listed = await get('/v1/tutor/conversations', token);
    expect(listed).toMatchObject({ status: 200, body: { total: 0, model_connected: true } });
  });

  it("keeps another student's conversation out of reach: not found for its messages and for a turn in it", async () => {
    const owner = await stack.student('tutor-h@test.studium');
    const other = await stack.student('tutor-i@test.studium');
    stack.llm.script({ chunks: ['Здравствуйте!'] });
    const turn = await tutorTurn(stack.url, owner.token, { message: 'Привет', lesson: stack.course });
    const id = turn.events[0]?.conversation_id as string;
    const requests = stack.llm.requests.length;
    expect(await get(`/v1/tutor/conversations/${id}/messages`, other.token)).toMatchObject({
      status: 404,
      body: { code: 'conversation_not_found' },
    });
    const intrude = await tutorTurn(stack.url, other.token, { message: 'Привет', conversation_id: id });
    expect(intrude).toMatchObject({ status: 404, body: { code: 'conversation_not_found' } });
    expect(stack.llm.requests.length).toBe(requests);
    expect((await get('/v1/tutor/conversations', other.token)).body.total).toBe(0);
    const mine = await get(`/v1/tutor/conversations/${id}/messages`, owner.token);
    expect(mine.body.items).toEqual([
      { role: 'user', content: 'Привет' },
      { role: 'assistant', content: 'Здравствуйте!' },
    ]);
    expect((await get('/v1/tutor/conversations/not-a-uuid/messages', owner.token)).status).toBe(404);
  });

  it('shows a past conversation again with the page views of its tools, not their raw replies', async () => {
    const { token } = await stack.student('tutor-j@test.studium');
    const lesson = `${stack.course}.interests`;
    stack.llm.script(scriptedTutor({ start: { lesson } }));
    const turn = await tutorTurn(stack.url, token, { message: 'Здравствуйте!', lesson });
    const id = turn.events[0]?.conversation_id as string;
    const shown = await get(`/v1/tutor/conversations/${id}/messages?page_size=100`, token);
    const body = JSON.stringify(shown.body);
    expect(body).not.toContain('directive');
    expect(body).not.toContain('material');
    const items = shown.body.items as Array<{ role: string; view?: { tool: string } }>;
    expect(items.filter((m) => m.role === 'tool').map((m) => m.view?.tool)).toEqual([
      'start_lesson',
      ...Array(5).fill('mark_goal'),
      'request_quiz',
    ]);
    expect(shown.body.conversation).toMatchObject({ lesson, session: expect.any(String) });
  });
});
