import { resolve } from 'node:path';
import { eventually } from '@studium/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatApi, sendMessage } from '../../../test/support/ai-chat.ts';
import { expectNoSeriousViolations } from '../../../test/support/axe.ts';
import { launchChromium } from '../../../test/support/browser.ts';
import { startChatStack } from './support.ts';

// The teacher's page at /chat, driven in headless Chromium against the real edge and services.
let stack: Awaited<ReturnType<typeof startChatStack>>;
let browser: Browser;
let page: Page;
const SCREENSHOT = resolve(import.meta.dirname, '../../../docs/images/ai-chat.png');

beforeAll(async () => {
  // A short silence limit of the model, so an answer that stalls after one piece runs into it here.
  stack = await startChatStack('ai-chat-page', { AI_IDLE_TIMEOUT_MS: '2000' });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${stack.url}/chat`);
  await page.fill('#token', stack.tokens.teacher);
  await page.click('#token-save');
  await page.waitForSelector('#composer');
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `слово${i} `);

// A real browser on 2 shared cores: each step of the page gets more than the default 30 s.
describe('the chat page', { timeout: 90_000 }, () => {
  it('streams an answer with a KaTeX formula, stops it, and reopens the thread without the stopped answer', async () => {
    stack.llm.script({
      chunks: ['## Площадь круга\n\n', 'Формула: $S', ' = \\pi r^2$', ' — ', '**запомните** её.\n\n', ...words(300)],
      delayMs: 40,
    });
    const before = stack.llm.requests.length;
    await page.fill('#composer', 'Как объяснить площадь круга?');
    await page.click('#send');
    // The formula is drawn by KaTeX while the answer is still streaming.
    await page.waitForSelector('.msg.assistant.live .katex', { timeout: 10_000 });
    expect(await page.textContent('.msg.assistant.live h2')).toBe('Площадь круга');
    expect(await page.isVisible('#stop')).toBe(true);
    await page.waitForFunction(() =>
      (document.querySelector('.msg.assistant.live')?.textContent ?? '').includes('слово5'),
    );
    if (process.env.STUDIUM_SCREENSHOTS === '1') await page.screenshot({ path: SCREENSHOT });

    await page.click('#stop');
    await page.waitForSelector('.msg.assistant.failed .note');
    expect(await page.textContent('.msg.assistant.failed .note')).toMatch(/остановлен/);
    await eventually(async () => expect(stack.llm.requests[before].aborted).toBe(true), 5000);

    // Reopen: only the question was kept.
    await page.reload();
    await page.click('.thread-item .open');
    await page.waitForSelector('.msg.user');
    expect(await page.locator('.msg.user .text').allTextContents()).toEqual(['Как объяснить площадь круга?']);
    expect(await page.locator('.msg.assistant').count()).toBe(0);
    // The page says why the question has no answer (spec 001 keeps none that did not end).
    expect(await page.textContent('.unanswered')).toMatch(/^Ответа нет: его остановили или он прервался/);

    // The next question in the same thread, answered to the end with a block formula.
    stack.llm.script({ chunks: ['Так:\n\n', '$$\n', 'S = \\pi r^2\n', '$$\n\n', 'Готово.'], delayMs: 10 });
    await page.fill('#composer', 'Покажите формулу отдельно');
    await page.click('#send');
    await page.waitForSelector('.msg.assistant:not(.live):not(.failed) .katex-display');
    const threads = await chatApi(stack.url, stack.tokens.teacher, 'GET', '/v1/ai-chat/threads');
    expect(threads.body.total).toBe(1);
    await page.reload();
    await page.click('.thread-item .open');
    await page.waitForSelector('.msg.assistant .katex-display');
    expect(await page.locator('.msg').count()).toBe(3);
  });

  it('pages upward through old messages', async () => {
    stack.llm.script((req) => ({ chunks: [`ответ ${req.body.messages.at(-1)?.content}`] }));
    let thread: string | null = null;
    for (let i = 1; i <= 13; i++) {
      const res = await sendMessage(stack.url, stack.tokens.teacher, { message: `вопрос ${i}`, thread_id: thread });
      thread = res.events[0].thread_id as string;
    }
    await page.reload();
    await page.click(`.thread-item[data-id="${thread}"] .open`);
    await page.waitForSelector('.msg.user');
    expect(await page.locator('.msg').count()).toBe(20);
    expect(await page.locator('.msg').last().textContent()).toContain('ответ вопрос 13');
    await page.click('#load-older');
    await eventually(async () => expect(await page.locator('.msg').count()).toBe(26), 5000);
    expect(await page.locator('.msg .text').first().textContent()).toBe('вопрос 1');
    expect(await page.isVisible('#load-older')).toBe(false);
  });

  it('deletes a thread', async () => {
    const items = page.locator('.thread-item');
    const count = await items.count();
    const id = await items.first().getAttribute('data-id');
    await items.first().locator('.delete-thread').click();
    await eventually(async () => expect(await items.count()).toBe(count - 1), 5000);
    const res = await chatApi(stack.url, stack.tokens.teacher, 'GET', `/v1/ai-chat/threads/${id}/messages`);
    expect(res.status).toBe(404);
  });

  it('an answer that stalls after one piece ends in the timeout error, not as an answer; reopened, the question says why', async () => {
    stack.llm.script({ chunks: ['Думаю над ответом…', ' и вот он.'], delayMs: 20_000 });
    await page.click('#new-thread');
    await page.fill('#composer', 'Как провести урок-игру?');
    await page.click('#send');
    await page.waitForSelector('.msg.assistant.failed .note', { timeout: 15_000 });
    expect(await page.textContent('.msg.assistant.failed .note')).toMatch(/^Модель не ответила вовремя/);
    await page.waitForSelector('#send');
    await page.reload();
    await page.click('.thread-item .open >> text=Как провести урок-игру?');
    await page.waitForSelector('.msg.user');
    expect(await page.locator('.msg.assistant').count()).toBe(0);
    expect(await page.textContent('.unanswered')).toMatch(/^Ответа нет: его остановили или он прервался/);
  });

  it('has no serious or moderate accessibility violation, signed out and in a conversation', async () => {
    await expectNoSeriousViolations(page);
    const signedOut = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    await signedOut.goto(`${stack.url}/chat`);
    await signedOut.waitForSelector('#token');
    await expectNoSeriousViolations(signedOut);
    await signedOut.close();
  });
});
