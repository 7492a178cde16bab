import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatApi, sendMessage, shape } from '../../../test/support/ai-chat.ts';
import { startChatStack } from './support.ts';

let stack: Awaited<ReturnType<typeof startChatStack>>;
let othersThread: string;
beforeAll(async () => {
  stack = await startChatStack('ai-chat-access', { AI_CHAT_ACTIVE_PER_USER: '2' });
  stack.llm.script({ chunks: ['Ответ.'] });
  const res = await sendMessage(stack.url, stack.tokens.other, { message: 'Чужой тред', thread_id: null });
  othersThread = res.events[0].thread_id as string;
});
afterAll(async () => {
  await stack?.close();
});

async function threadCount(token: string): Promise<number> {
  return (await chatApi(stack.url, token, 'GET', '/v1/ai-chat/threads')).body.total;
}

describe('errors before the stream', () => {
  it('401 without a token or with an unknown one, on every route', async () => {
    for (const token of [null, 'stu_not-a-real-token']) {
      const res = await sendMessage(stack.url, token, { message: 'Привет', thread_id: null });
      expect(res.status).toBe(401);
      expect(res.body?.detail).toMatch(/токен/i);
      expect((await chatApi(stack.url, token, 'GET', '/v1/ai-chat/threads')).status).toBe(401);
      expect((await chatApi(stack.url, token, 'GET', `/v1/ai-chat/threads/${othersThread}/messages`)).status).toBe(401);
      expect((await chatApi(stack.url, token, 'DELETE', `/v1/ai-chat/threads/${othersThread}`)).status).toBe(401);
    }
  });

  it('422 for an empty message, a blank one, one over 8000 characters, or a body that is not the request', async () => {
    const before = await threadCount(stack.tokens.teacher);
    const bodies: unknown[] = [
      { message: '', thread_id: null },
      { message: '   \n ', thread_id: null },
      { message: 'я'.repeat(8001), thread_id: null },
      { thread_id: null },
      { message: 42 },
      { message: 'Привет', thread_id: 7 },
      'not json',
    ];
    for (const body of bodies) {
      const res = await sendMessage(stack.url, stack.tokens.teacher, body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(422);
      expect(res.body?.detail).toEqual(expect.any(String));
    }
    const tooLong = await sendMessage(stack.url, stack.tokens.teacher, { message: 'я'.repeat(8001) });
    expect(tooLong.body).toMatchObject({ code: 'message_invalid', reason: 'too_long', length: 8001, limit: 8000 });
    // A refused message writes nothing.
    expect(await threadCount(stack.tokens.teacher)).toBe(before);
  });

  it('8000 characters are fine, counted as characters (an emoji is one)', async () => {
    stack.llm.script({ chunks: ['Ок.'] });
    const res = await sendMessage(stack.url, stack.tokens.teacher, { message: '😀'.repeat(8000), thread_id: null });
    expect(res.status).toBe(200);
    expect(shape(res.events)).toEqual(['metadata', 'message_id', 'content', 'ai_message_id', 'done']);
  });

  it("404 for a missing thread and for someone else's, alike, on every route", async () => {
    for (const thread of [randomUUID(), othersThread, 'not-a-uuid']) {
      const res = await sendMessage(stack.url, stack.tokens.teacher, { message: 'Продолжу', thread_id: thread });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'thread_not_found' });
      const messages = await chatApi(stack.url, stack.tokens.teacher, 'GET', `/v1/ai-chat/threads/${thread}/messages`);
      expect(messages.status).toBe(404);
      expect((await chatApi(stack.url, stack.tokens.teacher, 'DELETE', `/v1/ai-chat/threads/${thread}`)).status).toBe(
        404,
      );
    }
    // The owner's thread is untouched by the stranger's attempts.
    const own = await chatApi(stack.url, stack.tokens.other, 'GET', `/v1/ai-chat/threads/${othersThread}/messages`);
    expect(own.body.items).toHaveLength(2);
  });

  it('the chat is for teachers and school administrators: a student gets 403', async () => {
    const res = await sendMessage(stack.url, stack.tokens.student, { message: 'Привет', thread_id: null });
    expect(res.status).toBe(403);
    expect((await chatApi(stack.url, stack.tokens.student, 'GET', '/v1/ai-chat/threads')).status).toBe(403);
    stack.llm.script({ chunks: ['Здравствуйте.'] });
    const admin = await sendMessage(stack.url, stack.tokens.schoolAdmin, { message: 'Привет', thread_id: null });
    expect(admin.status).toBe(200);
    expect(shape(admin.events).at(-1)).toBe('done');
  });

  it('a read-only token lists threads but cannot write', async () => {
    expect((await chatApi(stack.url, stack.tokens.teacherRead, 'GET', '/v1/ai-chat/threads')).status).toBe(200);
    const res = await sendMessage(stack.url, stack.tokens.teacherRead, { message: 'Привет', thread_id: null });
    expect(res.status).toBe(403);
  });

  it('429 when the teacher already waits for as many answers as allowed', async () => {
    stack.llm.script({ chunks: Array.from({ length: 100 }, () => 'слово '), delayMs: 30 });
    const abort = new AbortController();
    const started: Promise<unknown>[] = [];
    let streaming = 0;
    const opened = new Promise<void>((resolve) => {
      for (let i = 0; i < 2; i++) {
        started.push(
          sendMessage(
            stack.url,
            stack.tokens.teacher,
            { message: `долгий ${i}`, thread_id: null },
            {
              signal: abort.signal,
              onEvent: (e) => {
                if (e.type === 'message_id' && ++streaming === 2) resolve();
              },
            },
          ),
        );
      }
    });
    await opened;
    const third = await sendMessage(stack.url, stack.tokens.teacher, { message: 'третий', thread_id: null });
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'too_many_answers', limit: 2 });
    // Another teacher is not affected.
    stack.llm.script({ chunks: ['Ок.'] });
    expect((await sendMessage(stack.url, stack.tokens.other, { message: 'мой', thread_id: null })).status).toBe(200);
    abort.abort();
    await Promise.allSettled(started);
  });
});
