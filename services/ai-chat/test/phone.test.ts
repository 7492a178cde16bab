import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatApi, sendMessage } from '../../../test/support/ai-chat.ts';
import { launchChromium } from '../../../test/support/browser.ts';
import { startChatStack } from './support.ts';

// The teacher's page at phone width (390 px), in headless Chromium against the real edge and
// services: one column, the thread list a drawer, the conversation and Send on screen. And the
// chat API's own errors carry a code like ai-chat's refusals do.
let stack: Awaited<ReturnType<typeof startChatStack>>;
let browser: Browser;
let page: Page;
const WIDTH = 390;
const SCREENSHOT = resolve(import.meta.dirname, '../../../docs/images/ai-chat-390.png');

beforeAll(async () => {
  stack = await startChatStack('ai-chat-phone');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: WIDTH, height: 844 }, deviceScaleFactor: 1 });
  await page.goto(`${stack.url}/chat`);
  await page.fill('#token', stack.tokens.teacher);
  await page.click('#token-save');
  await page.waitForSelector('#composer');
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** The element's box, which must lie inside the 390 px viewport. */
async function onScreen(selector: string) {
  const box = await page.locator(selector).boundingBox();
  expect(box, selector).not.toBeNull();
  const b = box as { x: number; y: number; width: number; height: number };
  expect(b.x, selector).toBeGreaterThanOrEqual(0);
  expect(b.x + b.width, selector).toBeLessThanOrEqual(WIDTH);
  return b;
}

describe('the chat page at 390 px', { timeout: 90_000 }, () => {
  it('has one column: the conversation and Send fit, the threads are a drawer', async () => {
    // Nothing is cut off: the page does not scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(WIDTH);
    const threads = await page.locator('.threads').boundingBox();
    expect((threads?.x ?? 0) + (threads?.width ?? 0)).toBeLessThanOrEqual(0);
    const chat = await onScreen('.chat');
    expect(chat.width).toBeGreaterThanOrEqual(WIDTH - 1);

    stack.llm.script({ chunks: ['Начните с ', 'простого примера.'] });
    await page.fill('#composer', 'Как начать урок о дробях?');
    await onScreen('#composer');
    await onScreen('#send');
    await page.click('#send');
    await page.waitForSelector('.msg.assistant:not(.live)');
    await onScreen('.msg.user');
    await onScreen('.msg.assistant');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(WIDTH);
    if (process.env.STUDIUM_SCREENSHOTS === '1') await page.screenshot({ path: SCREENSHOT });

    // The drawer: opened from the top bar, it lists the thread; choosing one closes it.
    await page.click('#threads-toggle');
    await page.waitForFunction(() => {
      const r = document.querySelector('.threads')?.getBoundingClientRect();
      return !!r && r.x >= 0;
    });
    await onScreen('.thread-item .open');
    expect(await page.getAttribute('#threads-toggle', 'aria-expanded')).toBe('true');
    await page.click('.thread-item .open');
    await page.waitForFunction(() => {
      const r = document.querySelector('.threads')?.getBoundingClientRect();
      return !!r && r.x + r.width <= 0;
    });
    await page.waitForSelector('.msg.assistant');
    expect(await page.textContent('.topbar-title')).toBe('Как начать урок о дробях?');
  });
});

describe('error bodies of the chat API carry a code', () => {
  it('401 without a token or with a bad one, 422 for a bad page, 403 for a read token writing', async () => {
    for (const token of [null, 'stu_nope']) {
      const list = await chatApi(stack.url, token, 'GET', '/v1/ai-chat/threads');
      expect(list.status).toBe(401);
      expect(list.body).toMatchObject({ code: 'invalid_token', detail: expect.any(String) });
      const stream = await sendMessage(stack.url, token, { message: 'Привет', thread_id: null });
      expect(stream.status).toBe(401);
      expect(stream.body).toMatchObject({ code: 'invalid_token' });
    }
    for (const query of ['page=0', 'page=x', 'page_size=100000']) {
      const res = await chatApi(stack.url, stack.tokens.teacher, 'GET', `/v1/ai-chat/threads?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body, query).toMatchObject({ code: 'invalid_page', detail: expect.stringContaining('page') });
    }
    const bad = await sendMessage(stack.url, stack.tokens.teacher, '{not json');
    expect(bad).toMatchObject({ status: 422, body: { code: 'invalid_body' } });
    const read = await sendMessage(stack.url, stack.tokens.teacherRead, { message: 'Привет' });
    expect(read).toMatchObject({ status: 403, body: { code: 'write_scope_required' } });
    const student = await chatApi(stack.url, stack.tokens.student, 'GET', '/v1/ai-chat/threads');
    expect(student).toMatchObject({ status: 403, body: { code: 'chat_role_required' } });
  });
});
