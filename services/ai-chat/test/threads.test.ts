import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatApi, sendMessage } from '../../../test/support/ai-chat.ts';
import { startChatStack } from './support.ts';

let stack: Awaited<ReturnType<typeof startChatStack>>;
beforeAll(async () => {
  stack = await startChatStack('ai-chat-threads');
  stack.llm.script((req) => ({ chunks: [`ответ: ${req.body.messages.at(-1)?.content}`] }));
});
afterAll(async () => {
  await stack?.close();
});

const ask = async (message: string, thread_id: string | null = null, token = stack.tokens.teacher) =>
  (await sendMessage(stack.url, token, { message, thread_id })).events[0].thread_id as string;

describe('threads and messages', () => {
  it('lists threads newest activity first, in pages', async () => {
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push(await ask(`тред ${i}`));
    await ask('ещё вопрос', ids[0]); // the first thread becomes the most recently active
    await ask('чужой', null, stack.tokens.other);
    const order = [ids[0], ids[4], ids[3], ids[2], ids[1]];
    const page1 = await chatApi(stack.url, stack.tokens.teacher, 'GET', '/v1/ai-chat/threads?page=1&page_size=2');
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ page: 1, page_size: 2, total: 5 });
    expect(page1.body.items.map((t: { id: string }) => t.id)).toEqual(order.slice(0, 2));
    const page3 = await chatApi(stack.url, stack.tokens.teacher, 'GET', '/v1/ai-chat/threads?page=3&page_size=2');
    expect(page3.body.items.map((t: { id: string }) => t.id)).toEqual(order.slice(4));
    const beyond = await chatApi(stack.url, stack.tokens.teacher, 'GET', '/v1/ai-chat/threads?page=4&page_size=2');
    expect(beyond.body.items).toEqual([]);
    const all = await chatApi(stack.url, stack.tokens.teacher, 'GET', '/v1/ai-chat/threads');
    expect(all.body).toMatchObject({ page: 1, page_size: 20, total: 5 });
    expect(all.body.items[0].title).toBe('тред 1');
  });

  it('lists a thread’s messages newest first, in pages, for paging upward', async () => {
    const thread = await ask('q1');
    for (let i = 2; i <= 5; i++) await ask(`q${i}`, thread);
    const path = `/v1/ai-chat/threads/${thread}/messages`;
    const first = await chatApi(stack.url, stack.tokens.teacher, 'GET', `${path}?page_size=3`);
    expect(first.body).toMatchObject({ page: 1, page_size: 3, total: 10 });
    expect(first.body.items.map((m: { content: string }) => m.content)).toEqual(['ответ: q5', 'q5', 'ответ: q4']);
    expect(first.body.items.map((m: { role: string }) => m.role)).toEqual(['assistant', 'user', 'assistant']);
    const last = await chatApi(stack.url, stack.tokens.teacher, 'GET', `${path}?page=4&page_size=3`);
    expect(last.body.items.map((m: { content: string }) => m.content)).toEqual(['q1']);
  });

  it('422 for a page or page size that is not a positive integer in range', async () => {
    for (const q of ['page=0', 'page=abc', 'page_size=0', 'page_size=101', 'page=-1', 'page_size=2.5']) {
      const res = await chatApi(stack.url, stack.tokens.teacher, 'GET', `/v1/ai-chat/threads?${q}`);
      expect(res.status, q).toBe(422);
    }
  });

  it('DELETE removes the thread with its messages: 204, then 404', async () => {
    const thread = await ask('удали меня');
    const del = await chatApi(stack.url, stack.tokens.teacher, 'DELETE', `/v1/ai-chat/threads/${thread}`);
    expect(del).toEqual({ status: 204, body: null });
    expect(
      (await chatApi(stack.url, stack.tokens.teacher, 'GET', `/v1/ai-chat/threads/${thread}/messages`)).status,
    ).toBe(404);
    expect((await chatApi(stack.url, stack.tokens.teacher, 'DELETE', `/v1/ai-chat/threads/${thread}`)).status).toBe(
      404,
    );
    const list = await chatApi(stack.url, stack.tokens.teacher, 'GET', '/v1/ai-chat/threads?page_size=100');
    expect(list.body.items.some((t: { id: string }) => t.id === thread)).toBe(false);
    const rows = await stack.chat.db.selectFrom('messages').select('id').where('thread_id', '=', thread).execute();
    expect(rows).toEqual([]);
    // Continuing a deleted thread is 404 too.
    expect((await sendMessage(stack.url, stack.tokens.teacher, { message: 'ещё', thread_id: thread })).status).toBe(
      404,
    );
  });
});
