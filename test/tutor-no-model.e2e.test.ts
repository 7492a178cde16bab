import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { startTutorStack, tutorTurn } from './support/tutor.ts';

// The tutor where no model is configured (AI_MODEL empty): the page and every turn say so.
let stack: Awaited<ReturnType<typeof startTutorStack>>;
let browser: Browser;

beforeAll(async () => {
  // The edge's bus deadline as the student pages' stack has it (the browser signs in on a loaded machine).
  stack = await startTutorStack('tutor-no-model', { aiChat: { AI_MODEL: '' }, edge: { REQUEST_TIMEOUT_MS: '5000' } });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the tutor without a model', { timeout: 90_000 }, () => {
  it('says on the page that no model is connected, and a turn ends with that error without calling any provider', async () => {
    const { token, password } = await stack.student('nomodel@test.studium');
    const turn = await tutorTurn(stack.url, token, { message: 'Привет', lesson: stack.course });
    expect(turn.status).toBe(200);
    expect(turn.events.at(-1)).toMatchObject({ type: 'error', content: expect.stringContaining('не подключена') });
    expect(stack.llm.requests).toHaveLength(0);

    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${stack.url}/tutor?course=${stack.course}`);
    await page.waitForSelector('#login');
    await page.fill('#login', 'nomodel@test.studium');
    await page.fill('#password', password);
    await page.click('#submit');
    await page.waitForSelector('#no-model');
    expect(await page.textContent('#no-model')).toContain('ИИ-модель не подключена');
    await page.close();
  });
});
