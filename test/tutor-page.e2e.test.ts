import { resolve } from 'node:path';
import { eventually } from '@studium/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousViolations } from './support/axe.ts';
import { launchChromium } from './support/browser.ts';
import { data } from './support/clients.ts';
import { scriptedTutor } from './support/scripted-tutor.ts';
import { startTutorStack } from './support/tutor.ts';

// The tutor's page at /tutor in headless Chromium at phone width: a whole lesson taught by the
// scripted tutor model through the page (buttons for choose, the quiz question whole, answers by
// click), then seen through the agent channel's tools.
let stack: Awaited<ReturnType<typeof startTutorStack>>;
let browser: Browser;
const SCREENSHOT = resolve(import.meta.dirname, '../docs/img/tutor-390.png');
const SCREENSHOT_DESKTOP = resolve(import.meta.dirname, '../docs/img/tutor-desktop.png');
const COURSE_TITLE = 'Рабочие переговоры для тимлида';

beforeAll(async () => {
  // The edge's bus deadline as the student pages' stack has it: a sign-in (verify_password) or a
  // page's call slower than the default 1.5 s on a loaded machine would show «Вход сейчас
  // недоступен» or an outage instead of the page.
  // A short silence limit of the model, so a reply that stalls after one piece runs into it here.
  stack = await startTutorStack('tutor-page', {
    lessons: { WEB_DEMO_LESSONS: '1' },
    aiChat: { AI_IDLE_TIMEOUT_MS: '2000' },
    edge: { REQUEST_TIMEOUT_MS: '5000' },
  });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** Opens `path` signed out: the page sends the browser to /login, which brings it back signed in. */
async function signedIn(
  path: string,
  student: { login: string; password: string },
  viewport = { width: 390, height: 844 },
): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await page.goto(`${stack.url}${path}`);
  await page.waitForSelector('#login');
  await page.fill('#login', student.login);
  await page.fill('#password', student.password);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('#submit')]);
  if (!path.startsWith('/tutor')) {
    // The lesson and course pages open the tutor for themselves.
    await page.waitForSelector('#tutor-link');
    await Promise.all([page.waitForURL((u) => u.pathname === '/tutor'), page.click('#tutor-link')]);
  }
  await page.waitForSelector('#composer');
  return page;
}

describe('the tutor page', { timeout: 120_000 }, () => {
  it('teaches a whole lesson: header, choose buttons, the quiz by clicks, the passed lesson; the agent channel sees it', async () => {
    const { agent, password } = await stack.student('page-a@test.studium');
    const lesson = `${stack.course}.interests`;
    stack.llm.script(
      scriptedTutor({
        start: { lesson },
        choose: { prompt: 'С чего начнём?', options: ['Сначала тема', 'Сразу мой случай'] },
      }),
    );
    const page = await signedIn(`/lessons/${encodeURIComponent(lesson)}`, { login: 'page-a@test.studium', password });
    expect(new URL(page.url()).searchParams.get('lesson')).toBe(lesson);
    await page.fill('#composer', 'Здравствуйте!');
    await page.click('#send');
    await page.waitForSelector('.card.choose button.choice:not([disabled])');
    expect(await page.textContent('#lesson-head .lesson-line')).toContain('Урок 2 из');
    expect(await page.textContent('#topics-progress')).toBe('темы урока: 0 из 2');
    expect(await page.textContent('#lesson-head .course-line')).toContain('пробных уроков осталось: 0');

    // A button is the student's reply: the goals get marked and the quiz question is shown whole.
    await page.click('.card.choose button.choice >> text=Сразу мой случай');
    await page.waitForSelector('.card.quiz button.option:not([disabled])');
    expect(await page.locator('.msg.user .text').last().textContent()).toBe(
      '«С чего начнём?» — выбираю: Сразу мой случай',
    );
    expect(await page.textContent('#topics-progress')).toBe('темы урока: 2 из 2');
    expect(await page.locator('.topic.covered').count()).toBe(2);
    if (process.env.STUDIUM_SCREENSHOTS === '1') await page.screenshot({ path: SCREENSHOT });

    // Each question answered by clicking the right option; the next appears in the next turn.
    for (let n = 0; n < 10; n++) {
      const question = await page.locator('.card.quiz').last().getAttribute('data-question');
      const right = stack.key.get(question as string)!.right;
      const cards = await page.locator('.card.verdict').count();
      await page.click(`.card.quiz >> nth=-1 >> button[data-option="${right}"]`);
      await page.waitForFunction((c) => document.querySelectorAll('.card.verdict').length > c, cards);
      // The verdict comes mid-turn; the turn is over when #send is back in place of #stop (the
      // composer stays enabled while the turn streams). Reloading during the turn would cut it.
      await page.waitForSelector('#send');
      if (await page.isVisible('#quiz-result')) break;
    }
    await page.waitForSelector('#lesson-passed');
    expect(await page.textContent('#quiz-result')).toContain('Квиз сдан');

    // Reopened later: the same conversation, cards and header back from the stored conversation.
    await page.reload();
    await page.waitForSelector('#lesson-passed');
    expect(await page.textContent('#topics-progress')).toBe('темы урока: 2 из 2');
    expect(await page.locator('.card.quiz').count()).toBeGreaterThan(0);
    expect(await page.locator('.card button:not([disabled])').count()).toBe(0);
    await expectNoSeriousViolations(page);

    // The agent channel's tools see the marks and the passed lesson.
    const outline = data(await agent.callTool('course_outline', { course: stack.course })) as {
      chapters: Array<{ lessons: Array<{ key: string; completed: boolean; objectives: Array<{ status: string }> }> }>;
    };
    const taught = outline.chapters[0]?.lessons.find((l) => l.key === 'interests');
    expect(taught?.completed).toBe(true);
    expect(taught?.objectives.map((o) => o.status)).toEqual(['covered', 'covered']);
    await page.close();
  });

  it('says when the trial lessons are used and how to connect an own agent', async () => {
    const { password } = await stack.student('page-b@test.studium');
    stack.llm.script((req) =>
      req.body.messages.at(-1)?.role === 'user'
        ? {
            toolCalls: [
              {
                name: 'start_lesson',
                arguments: { lesson: `${stack.course}.${req.body.messages.length > 3 ? 'batna' : 'why-prepare'}` },
              },
            ],
          }
        : { chunks: ['Начнём.'] },
    );
    const page = await signedIn(`/courses/${stack.course}`, { login: 'page-b@test.studium', password });
    expect(new URL(page.url()).searchParams.get('course')).toBe(stack.course);
    await page.fill('#composer', 'Привет');
    await page.click('#send');
    await page.waitForSelector('#lesson-head');
    await page.waitForSelector('#send');
    await page.fill('#composer', 'Дальше');
    await page.click('#send');
    await page.waitForSelector('#demo-exhausted');
    expect(await page.textContent('#demo-exhausted')).toContain('/mcp');
    expect(await page.isDisabled('#composer')).toBe(true);
    await page.close();
  });

  it("draws Markdown and KaTeX while a turn streams, stops it with Stop (the provider's request is aborted)", async () => {
    const { password } = await stack.student('page-c@test.studium');
    stack.llm.script({
      chunks: [
        '## Площадь\n\n',
        'Формула: $S',
        ' = \\pi r^2$',
        '\n\n',
        ...Array.from({ length: 200 }, (_, i) => `слово${i} `),
      ],
      delayMs: 40,
    });
    const before = stack.llm.requests.length;
    const page = await signedIn(`/tutor?course=${stack.course}`, { login: 'page-c@test.studium', password });
    await expectNoSeriousViolations(page);
    await page.fill('#composer', 'Расскажите подробно');
    await page.click('#send');
    // Markdown and the KaTeX formula are drawn while the turn streams.
    await page.waitForSelector('.msg.assistant.live .katex', { timeout: 10_000 });
    expect(await page.textContent('.msg.assistant.live h2')).toBe('Площадь');
    await page.waitForFunction(() =>
      (document.querySelector('.msg.assistant.live')?.textContent ?? '').includes('слово3'),
    );
    await page.click('#stop');
    await page.waitForSelector('.msg.assistant.failed .note');
    expect(await page.textContent('.msg.assistant.failed .note')).toBe('Остановлено.');
    await eventually(async () => expect(stack.llm.requests[before]?.aborted).toBe(true), 5000);

    // Reopened, the stopped reply is still there as stopped, with the text it had.
    const conversation = new URL(page.url()).searchParams.get('conversation');
    await eventually(async () => {
      const shown = await page.request.get(`${stack.url}/v1/tutor/conversations/${conversation}/messages`);
      expect((await shown.json()).items.at(-1)).toMatchObject({ role: 'assistant', note: 'Остановлено.' });
    }, 5000);
    await page.reload();
    await page.waitForSelector('.msg.assistant.failed .note');
    expect(await page.textContent('.msg.assistant.failed .note')).toBe('Остановлено.');
    expect(await page.textContent('.msg.assistant.failed')).toContain('слово3');

    // The session's cookie alone does not send a message: a POST needs the page's CSRF token.
    const forged = await page.request.post(`${stack.url}/v1/tutor/stream`, {
      data: { message: 'Привет', lesson: stack.course },
      headers: { 'x-csrf-token': 'forged' },
    });
    expect(forged.status()).toBe(403);
    expect((await forged.json()).code).toBe('csrf_required');
    const bare = await page.request.post(`${stack.url}/v1/tutor/stream`, {
      data: { message: 'Привет', lesson: stack.course },
    });
    expect(bare.status()).toBe(403);
    expect((await page.request.get(`${stack.url}/v1/tutor/conversations`)).status()).toBe(200);
    await page.close();
  });

  it('a reply that stalls after one piece ends as the timeout failure, on screen and after a reload', async () => {
    const { password } = await stack.student('page-e@test.studium');
    stack.llm.script({ chunks: ['Думаю над ответом…', ' и вот ответ.'], delayMs: 20_000 });
    const page = await signedIn(`/tutor?course=${stack.course}`, { login: 'page-e@test.studium', password });
    await page.fill('#composer', 'Здравствуйте');
    await page.click('#send');
    await page.waitForSelector('.msg.assistant.failed .note', { timeout: 15_000 });
    expect(await page.textContent('.msg.assistant.failed .note')).toMatch(/^Модель не ответила вовремя/);
    expect((await page.textContent('.msg.assistant.failed .markdown'))?.trim()).toBe('Думаю над ответом…');
    await page.waitForSelector('#send');
    await page.reload();
    await page.waitForSelector('.msg.assistant.failed .note');
    expect(await page.textContent('.msg.assistant.failed .note')).toMatch(/^Модель не ответила вовремя/);
    expect(await page.locator('.msg.assistant:not(.failed)').count()).toBe(0);
    await page.close();
  });

  it('lists the conversations by lesson and course, newest first; signs out', async () => {
    const { password } = await stack.student('page-d@test.studium');
    const student = { login: 'page-d@test.studium', password };
    stack.llm.script((req) =>
      req.body.messages.at(-1)?.role === 'user' && String(req.body.messages[0]?.content).includes('для курса')
        ? { toolCalls: [{ name: 'start_lesson', arguments: { course: stack.course } }] }
        : { chunks: ['Здравствуйте! Начнём, когда будете готовы.'] },
    );
    const say = async (page: Page, text: string) => {
      await page.fill('#composer', text);
      await page.click('#send');
      await page.waitForSelector('.msg.assistant:not(.live)');
      await page.waitForSelector('#send');
    };
    const desktop = { width: 1280, height: 800 };
    const page = await signedIn(`/tutor?lesson=${stack.course}.interests`, student, desktop);
    await say(page, 'Здравствуйте');
    await page.goto(`${stack.url}/tutor?lesson=${stack.course}.batna`);
    await say(page, 'Здравствуйте');
    // A course's conversation is named by the lesson its start_lesson opened.
    await page.goto(`${stack.url}/tutor?course=${stack.course}`);
    await page.fill('#composer', 'Здравствуйте');
    await page.click('#send');
    await page.waitForSelector('#lesson-head');
    await page.waitForSelector('#send');
    await eventually(async () => {
      expect(await page.locator('.thread-item .conv-name').allTextContents()).toEqual([
        'Переговоры, которые вы уже ведёте',
        'Альтернатива и границы',
        'Позиции и интересы',
      ]);
    }, 5000);
    expect(await page.locator('.thread-item .conv-course').allTextContents()).toEqual(Array(3).fill(COURSE_TITLE));
    expect(await page.getAttribute('.thread-item.active .open', 'aria-current')).toBe('true');
    expect(await page.textContent('h1')).toBe('Репетитор');
    await expectNoSeriousViolations(page);
    if (process.env.STUDIUM_SCREENSHOTS === '1') await page.screenshot({ path: SCREENSHOT_DESKTOP });

    // «Выйти» ends the session as on the other web pages: the tutor asks to sign in again.
    await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/login')), page.click('#signout')]);
    await page.goto(`${stack.url}/tutor`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.close();
  });
});
