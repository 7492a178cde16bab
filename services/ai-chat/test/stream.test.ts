import { eventually } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerText, chatApi, sendMessage, shape } from '../../../test/support/ai-chat.ts';
import { SYSTEM_PROMPT } from '../src/domain/prompt.ts';
import { startChatStack } from './support.ts';

let stack: Awaited<ReturnType<typeof startChatStack>>;
beforeAll(async () => {
  // A short silence limit, so a model that stalls after its first piece runs into it within the test.
  stack = await startChatStack('ai-chat-stream', { AI_IDLE_TIMEOUT_MS: '1500' });
});
afterAll(async () => {
  await stack?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /v1/ai-chat/stream', () => {
  it('starts a new thread: metadata, message_id, content…, ai_message_id, done; both messages are kept', async () => {
    stack.llm.script({ chunks: ['Начните', ' с пиццы', ': $\\frac{1}{2}$'], delayMs: 5 });
    const res = await sendMessage(stack.url, stack.tokens.teacher, {
      message: 'Как объяснить дроби пятиклассникам?',
      thread_id: null,
    });
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^text\/event-stream/);
    expect(shape(res.events)).toEqual(['metadata', 'message_id', 'content', 'ai_message_id', 'done']);
    // The first piece comes alone, at once; later pieces close together may share an event.
    const contents = res.events.filter((e) => e.type === 'content');
    expect(contents[0]).toEqual({ type: 'content', content: 'Начните' });
    expect(contents.length).toBeGreaterThanOrEqual(2);
    const [metadata, messageId] = res.events;
    expect(metadata).toEqual({ type: 'metadata', thread_id: expect.stringMatching(UUID) });
    expect(messageId).toEqual({ type: 'message_id', id: expect.any(String) });
    expect(answerText(res.events)).toBe('Начните с пиццы: $\\frac{1}{2}$');
    const aiId = res.events.at(-2)?.id;
    expect(res.events.at(-1)).toEqual({ type: 'done' });

    // The model got the rules and the question.
    const sent = stack.llm.requests.at(-1)!.body;
    expect(sent.model).toBe('scripted-model');
    expect(sent.stream).toBe(true);
    expect(sent.messages).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'Как объяснить дроби пятиклассникам?' },
    ]);

    const thread = metadata.thread_id as string;
    const messages = await chatApi(stack.url, stack.tokens.teacher, 'GET', `/v1/ai-chat/threads/${thread}/messages`);
    expect(messages.status).toBe(200);
    expect(messages.body.items).toEqual([
      { id: aiId, role: 'assistant', content: 'Начните с пиццы: $\\frac{1}{2}$' },
      { id: messageId.id, role: 'user', content: 'Как объяснить дроби пятиклассникам?' },
    ]);
    const threads = await chatApi(stack.url, stack.tokens.teacher, 'GET', '/v1/ai-chat/threads');
    expect(threads.body.items[0]).toEqual({
      id: thread,
      title: 'Как объяснить дроби пятиклассникам?',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(Date.parse(threads.body.items[0].updated_at)).toBeGreaterThan(Date.parse(threads.body.items[0].created_at));
  });

  it('continues a thread: the same thread_id, and the model sees the conversation so far', async () => {
    stack.llm.script({ chunks: ['Первый ответ.'] });
    const first = await sendMessage(stack.url, stack.tokens.teacher, { message: 'Тема: площадь круга' });
    const thread = first.events[0].thread_id as string;
    stack.llm.script({ chunks: ['Второй', ' ответ.'] });
    const second = await sendMessage(stack.url, stack.tokens.teacher, {
      message: 'А для 6 класса?',
      thread_id: thread,
    });
    expect(shape(second.events)).toEqual(['metadata', 'message_id', 'content', 'ai_message_id', 'done']);
    expect(second.events[0]).toEqual({ type: 'metadata', thread_id: thread });
    expect(stack.llm.requests.at(-1)!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Тема: площадь круга' },
      { role: 'assistant', content: 'Первый ответ.' },
      { role: 'user', content: 'А для 6 класса?' },
    ]);
    const messages = await chatApi(stack.url, stack.tokens.teacher, 'GET', `/v1/ai-chat/threads/${thread}/messages`);
    expect(messages.body.items.map((m: { content: string }) => m.content)).toEqual([
      'Второй ответ.',
      'А для 6 класса?',
      'Первый ответ.',
      'Тема: площадь круга',
    ]);
  });

  it('titles a thread with the start of its first message, up to 80 characters', async () => {
    stack.llm.script({ chunks: ['Ок.'] });
    const long = `${'Очень длинный вопрос про методику преподавания '.repeat(5)}конец`;
    const res = await sendMessage(stack.url, stack.tokens.teacher, { message: long, thread_id: null });
    const threads = await chatApi(stack.url, stack.tokens.teacher, 'GET', '/v1/ai-chat/threads?page_size=100');
    const mine = threads.body.items.find((t: { id: string }) => t.id === res.events[0].thread_id);
    expect([...mine.title].length).toBeLessThanOrEqual(80);
    expect(mine.title.length).toBeGreaterThan(40);
    expect(long.startsWith(mine.title.replace(/…$/, ''))).toBe(true);
  });

  it('a model failure mid-answer is an error event: the question is kept, no answer is saved', async () => {
    stack.llm.script({ chunks: ['Начало', ' ответа', ' конец'], failAfter: { chunks: 2, how: 'error' } });
    const res = await sendMessage(stack.url, stack.tokens.teacher, { message: 'Вопрос со сбоем', thread_id: null });
    expect(res.status).toBe(200);
    expect(shape(res.events)).toEqual(['metadata', 'message_id', 'content', 'error']);
    expect(res.events.at(-1)?.content).toMatch(/сохранено/);
    const thread = res.events[0].thread_id as string;
    const messages = await chatApi(stack.url, stack.tokens.teacher, 'GET', `/v1/ai-chat/threads/${thread}/messages`);
    expect(messages.body.items).toEqual([{ id: res.events[1].id, role: 'user', content: 'Вопрос со сбоем' }]);
  });

  it('a model that goes silent after one piece ends in the timeout error: the cut text is not saved as an answer', async () => {
    // One piece, then a silence longer than AI_IDLE_TIMEOUT_MS (the client's own stream ends
    // quietly when its request is aborted, so this once came out as `done` with the cut text kept).
    stack.llm.script({ chunks: ['Думаю над ответом…', ' и вот он.'], delayMs: 10_000 });
    const before = stack.llm.requests.length;
    const res = await sendMessage(stack.url, stack.tokens.teacher, { message: 'Долгий вопрос', thread_id: null });
    expect(shape(res.events)).toEqual(['metadata', 'message_id', 'content', 'error']);
    expect(answerText(res.events)).toBe('Думаю над ответом…');
    expect(res.events.at(-1)?.content).toMatch(/^Модель не ответила вовремя/);
    expect(stack.llm.requests[before]?.aborted).toBe(true);
    const thread = res.events[0].thread_id as string;
    const messages = await chatApi(stack.url, stack.tokens.teacher, 'GET', `/v1/ai-chat/threads/${thread}/messages`);
    expect(messages.body.items).toEqual([{ id: res.events[1].id, role: 'user', content: 'Долгий вопрос' }]);

    // The next question: the model sees no answer of its own to the cut one.
    stack.llm.script({ chunks: ['Теперь ответ.'] });
    await sendMessage(stack.url, stack.tokens.teacher, { message: 'Повторю вопрос', thread_id: thread });
    expect(stack.llm.requests.at(-1)!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Долгий вопрос' },
      { role: 'user', content: 'Повторю вопрос' },
    ]);
  });

  it('a provider that drops the connection mid-answer is an error event too', async () => {
    stack.llm.script({ chunks: ['a', 'b', 'c'], failAfter: { chunks: 1, how: 'close' } });
    const res = await sendMessage(stack.url, stack.tokens.teacher, { message: 'Обрыв', thread_id: null });
    expect(shape(res.events)).toEqual(['metadata', 'message_id', 'content', 'error']);
    expect(res.events.at(-1)?.content).toMatch(/оборвалась/);
  });

  it('429 and 5xx from the provider are error events that say what happened', async () => {
    stack.llm.script({ status: 429, retryAfter: '0' });
    const limited = await sendMessage(stack.url, stack.tokens.teacher, { message: 'Перегрузка', thread_id: null });
    expect(shape(limited.events)).toEqual(['metadata', 'message_id', 'error']);
    expect(limited.events.at(-1)?.content).toMatch(/перегружена/);
    stack.llm.script({ status: 503 });
    const down = await sendMessage(stack.url, stack.tokens.teacher, { message: 'Сбой провайдера', thread_id: null });
    expect(shape(down.events)).toEqual(['metadata', 'message_id', 'error']);
    expect(down.events.at(-1)?.content).toMatch(/недоступна/);
    const thread = down.events[0].thread_id as string;
    const messages = await chatApi(stack.url, stack.tokens.teacher, 'GET', `/v1/ai-chat/threads/${thread}/messages`);
    expect(messages.body.items).toHaveLength(1);
  });

  it('a client that disconnects cancels the answer: the model call is aborted and no answer is saved', async () => {
    stack.llm.script({ chunks: Array.from({ length: 200 }, (_, i) => `слово${i} `), delayMs: 20 });
    const abort = new AbortController();
    let thread = '';
    const before = stack.llm.requests.length;
    await sendMessage(
      stack.url,
      stack.tokens.teacher,
      { message: 'Длинный ответ', thread_id: null },
      {
        signal: abort.signal,
        onEvent: (e) => {
          if (e.type === 'metadata') thread = e.thread_id as string;
          if (e.type === 'content') abort.abort();
        },
      },
    );
    const request = stack.llm.requests[before];
    await eventually(async () => expect(request.aborted).toBe(true), 5000);
    expect(request.finished).toBe(false);
    // Give a wrongly kept answer time to appear: there must be none.
    await new Promise((r) => setTimeout(r, 300));
    const messages = await chatApi(stack.url, stack.tokens.teacher, 'GET', `/v1/ai-chat/threads/${thread}/messages`);
    expect(messages.body.items).toEqual([{ id: expect.any(String), role: 'user', content: 'Длинный ответ' }]);
  });

  it('the assistant sees the last 30 messages of the thread', async () => {
    stack.llm.script((req) => ({ chunks: [`ответ на «${req.body.messages.at(-1)?.content}»`] }));
    let thread: string | null = null;
    for (let i = 1; i <= 16; i++) {
      const res = await sendMessage(stack.url, stack.tokens.teacher, { message: `вопрос ${i}`, thread_id: thread });
      thread = res.events[0].thread_id as string;
    }
    // 32 messages are in the thread; the 17th question makes 33, and the model sees the last 30.
    await sendMessage(stack.url, stack.tokens.teacher, { message: 'вопрос 17', thread_id: thread });
    const sent = stack.llm.requests.at(-1)!.body.messages;
    expect(sent).toHaveLength(31);
    expect(sent[0].role).toBe('system');
    expect(sent[1]).toEqual({ role: 'assistant', content: 'ответ на «вопрос 2»' });
    expect(sent[2]).toEqual({ role: 'user', content: 'вопрос 3' });
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'вопрос 17' });
    expect(sent.some((m) => m.content === 'вопрос 1' || m.content === 'вопрос 2')).toBe(false);
  });
});
