import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatApi, sendMessage, shape } from '../../../test/support/ai-chat.ts';
import { launchChromium } from '../../../test/support/browser.ts';
import { startChatStack } from './support.ts';

let stack: Awaited<ReturnType<typeof startChatStack>>;
beforeAll(async () => {
  // No AI_MODEL: the service runs, and the chat says that no model is connected and how to connect one.
  stack = await startChatStack('ai-chat-no-model', { AI_MODEL: '', AI_BASE_URL: '' });
});
afterAll(async () => {
  await stack?.close();
});

describe('without a model', () => {
  it('every answer is an error event that says no model is connected and how to connect one', async () => {
    const res = await sendMessage(stack.url, stack.tokens.teacher, { message: 'Привет', thread_id: null });
    expect(res.status).toBe(200);
    expect(shape(res.events)).toEqual(['metadata', 'message_id', 'error']);
    const text = res.events.at(-1)?.content as string;
    expect(text).toMatch(/модель не подключена/i);
    expect(text).toContain('AI_BASE_URL');
    expect(text).toContain('AI_MODEL');
    expect(stack.llm.requests).toHaveLength(0);
  });

  it('the status route tells the page the same', async () => {
    const res = await chatApi(stack.url, stack.tokens.teacher, 'GET', '/v1/ai-chat/status');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ connected: false, model: null, how: expect.stringContaining('AI_MODEL') });
  });

  it('the page says so in a banner, and in the answer', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${stack.url}/chat`);
      await page.fill('#token', stack.tokens.teacher);
      await page.click('#token-save');
      await page.waitForSelector('.banner.no-model');
      expect(await page.textContent('.banner.no-model')).toMatch(/не подключена.*AI_MODEL/s);
      await page.fill('#composer', 'Есть кто-нибудь?');
      await page.click('#send');
      await page.waitForSelector('.msg.assistant.failed .note');
      expect(await page.textContent('.msg.assistant.failed .note')).toMatch(/модель не подключена/i);
    } finally {
      await browser.close();
    }
  });
});
