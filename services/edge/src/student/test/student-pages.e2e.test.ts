import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { eventually } from '@studium/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousViolations } from '../../../../../test/support/axe.ts';
import { data } from '../../../../../test/support/clients.ts';
import { passLesson } from '../../../../../test/support/teach.ts';
import { signIn, startWebStack } from './stack.ts';

// The student pages as a person meets them, in headless Chromium against the real services, with
// the student's own agent (MCP client) beside them: what one does, the other sees next call.
let w: Awaited<ReturnType<typeof startWebStack>>;
let ctx: BrowserContext;
let page: Page;

/** Set STUDIUM_SCREENSHOTS=1 to write docs/img/web-<name>-{desktop,phone}.png. */
const SHOTS = process.env.STUDIUM_SCREENSHOTS === '1';
const IMG = new URL('../../../../../docs/img/', import.meta.url).pathname;
async function shoot(name: string, path: string, from: Page = page) {
  if (!SHOTS) return;
  await mkdir(IMG, { recursive: true });
  await from.screenshot({ path: `${IMG}web-${name}-desktop.png`, fullPage: true });
  const phone = await w.context(true);
  await phone.addCookies(await from.context().cookies());
  const p = await phone.newPage();
  await p.goto(`${w.url}${path}`);
  await p.waitForLoadState('networkidle');
  await p.screenshot({ path: `${IMG}web-${name}-phone.png`, fullPage: true });
  await phone.close();
}

beforeAll(async () => {
  w = await startWebStack('student-web');
  ctx = await w.context();
  page = await ctx.newPage();
}, 90_000);

afterAll(async () => {
  await ctx?.close();
  await w?.close();
});

const lessonBoth = () => w.stack.lesson('l-both');

describe('sign-in', () => {
  it('sends a signed-out visitor to /login, which tells how to get a password, and signs in with it', async () => {
    await page.goto(`${w.url}/documents`);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.textContent('#no-password')).toContain('Пароль для входа задаёт администратор');
    if (SHOTS) await page.screenshot({ path: `${IMG}web-signin-desktop.png` });
    await page.fill('#login', 'anna@hw');
    await page.fill('#password', 'wrong-password');
    await page.click('#submit');
    await page.waitForSelector('.error');
    expect(await page.textContent('.error')).toContain('Неверный логин или пароль');
    await page.fill('#password', 'anna-secret-pass-1');
    await Promise.all([page.waitForURL((u) => u.pathname === '/documents'), page.click('#submit')]);
    const cookie = (await ctx.cookies()).find((c) => c.name === 'studium_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    // Only the hash of the session id is stored.
    const rows = await w.edge.database.pool.query('select id_hash from edge.web_sessions');
    const hash = createHash('sha256').update(String(cookie?.value)).digest('base64url');
    expect(rows.rows.map((r) => r.id_hash)).toEqual([hash]);
    expect(JSON.stringify(rows.rows)).not.toContain(String(cookie?.value));
  }, 60_000);

  it('switches the space with set_space, and the agent sees the same selection', async () => {
    await page.goto(`${w.url}/`);
    await page.waitForSelector('#space');
    await Promise.all([page.waitForEvent('load'), page.selectOption('#space', 'acme')]);
    await page.waitForSelector('#my-courses .course');
    // The space in words: the organization's title, not its name.
    await expect.poll(() => page.textContent('#space-name')).toBe('Пространство: «Акме»');
    expect(await page.textContent('#my-courses')).toContain('обязательный');
    expect(data(await w.anna.callTool('whoami')).space).toBe('acme');
    await shoot('courses', '/');
  }, 60_000);
});

describe('the lesson page from lesson_url', () => {
  it('hands in text and three files as one version, as the tools do, and the agent sees it', async () => {
    await passLesson(w.anna, { lesson: lessonBoth(), space: 'acme' });
    const url = await eventually(async () => {
      const items = data(await w.anna.callTool('my_homework', { space: 'acme' })).items as Array<{
        lesson: string;
        lesson_url: string;
      }>;
      const item = items.find((i) => i.lesson === lessonBoth());
      if (!item) throw new Error('homework not assigned yet');
      return item.lesson_url;
    });
    expect(url).toBe(`${w.url}/lessons/${encodeURIComponent(lessonBoth())}#homework`);
    await page.goto(url);
    await page.waitForSelector('#homework-title');
    expect(await page.textContent('#goals')).toContain('разобрана');
    // The block names its space, and the answer's label is for people.
    expect(await page.textContent('#homework-space')).toBe('Домашка сдаётся в пространство «Акме».');
    expect(await page.textContent('label[for="answer"]')).toBe('Ваш ответ');
    await page.fill('#answer', 'Встречу провёл, протокол приложен');
    await page.setInputFiles('#file-input', [
      { name: 'protocol.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.7\nпротокол') },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Заметки встречи\n') },
      { name: 'plan.csv', mimeType: 'text/csv', buffer: Buffer.from('шаг,срок\nретро,пятница\n') },
    ]);
    expect(await page.locator('#picked li').count()).toBe(3);
    await page.click('#hand-in');
    await page.waitForSelector('#hand-in-done', { timeout: 20_000 });
    type Files = Array<{ name: string }>;
    const mine = data(await w.anna.callTool('my_homework', { lesson: lessonBoth(), space: 'acme' })) as {
      submission: {
        version: number;
        answer: string;
        files: Files;
        status: string;
        versions: Array<{ version: number; answer: string; files: Files }>;
      };
    };
    expect(mine.submission.answer).toBe('Встречу провёл, протокол приложен');
    expect(mine.submission.files.map((f) => f.name)).toEqual(['protocol.pdf', 'notes.txt', 'plan.csv']);
    expect(mine.submission.status).toBe('Submitted');
    // One hand-in, one version holding the text and the files.
    expect(mine.submission.version).toBe(1);
    expect(mine.submission.versions.map((v) => [v.version, v.answer, v.files.length])).toEqual([
      [1, 'Встречу провёл, протокол приложен', 3],
    ]);
    await page.waitForSelector(`#versions li[data-version="${mine.submission.version}"]`);
    expect(await page.textContent('#homework-version')).toContain(String(mine.submission.version));
    await shoot('lesson', `/lessons/${encodeURIComponent(lessonBoth())}`);
  }, 90_000);

  it('says why there is nothing to hand in when the answer did not change', async () => {
    await page.click('#hand-in');
    await page.waitForSelector('#hand-in-error');
    expect(await page.textContent('#hand-in-error')).toBe(
      'Нечего сдавать: текст не изменился с версии 1, и новых файлов нет. Поправьте ответ или добавьте файлы — тогда сохранится новая версия.',
    );
  }, 60_000);

  it('scrolls to the homework block at lesson_url’s #homework, though the page renders after load', async () => {
    const phone = await w.context(true);
    await phone.addCookies(await ctx.cookies());
    const p = await phone.newPage();
    await p.goto(`${w.url}/lessons/${encodeURIComponent(lessonBoth())}#homework`);
    await p.waitForSelector('#homework-title');
    await expect
      .poll(() =>
        p.evaluate(() => [
          window.scrollY > 0,
          Math.round(document.getElementById('homework')!.getBoundingClientRect().top),
        ]),
      )
      .toEqual([true, 0]);
    await phone.close();
  }, 60_000);

  it('names the homework’s own space when the switcher shows another one', async () => {
    data(await w.anna.callTool('set_space', { space: 'personal' }));
    try {
      await page.goto(`${w.url}/lessons/${encodeURIComponent(lessonBoth())}`);
      await page.waitForSelector('#homework-space');
      await expect.poll(() => page.inputValue('#space')).toBe('personal');
      await expect
        .poll(() => page.textContent('#homework-space'))
        .toBe(
          'Домашка сдаётся в пространство «Акме» — там идёт ваше занятие по этому курсу; выбор пространства вверху страницы её не меняет.',
        );
      expect(await page.getAttribute('#homework-space', 'data-space')).toBe('acme');
    } finally {
      data(await w.anna.callTool('set_space', { space: 'acme' }));
    }
  }, 60_000);

  it('shows too_many_files in words, and writes nothing', async () => {
    const before = data(await w.anna.callTool('my_homework', { lesson: lessonBoth(), space: 'acme' })) as {
      submission: { version: number };
    };
    await page.setInputFiles(
      '#file-input',
      Array.from({ length: 8 }, (_, i) => ({
        name: `extra-${i}.txt`,
        mimeType: 'text/plain',
        buffer: Buffer.from(`файл ${i}\n`),
      })),
    );
    await page.click('#hand-in');
    await page.waitForSelector('#hand-in-error');
    expect(await page.textContent('#hand-in-error')).toContain('В ответе не больше 10 файлов');
    const after = data(await w.anna.callTool('my_homework', { lesson: lessonBoth(), space: 'acme' })) as {
      submission: { version: number };
    };
    expect(after.submission.version).toBe(before.submission.version);
  }, 60_000);

  it('shows accepted_locked in words when the curator accepts while the page is open, then no editor', async () => {
    const items = data(await w.anna.callTool('my_homework', { space: 'acme' })).items as Array<{
      lesson: string;
      submission: string;
    }>;
    const submission = items.find((i) => i.lesson === lessonBoth())?.submission;
    await page.goto(`${w.url}/lessons/${encodeURIComponent(lessonBoth())}`);
    await page.waitForSelector('#answer');
    data(await w.curator.callTool('accept_homework', { submission }));
    await page.fill('#answer', 'Ещё одна правка');
    await page.click('#hand-in');
    await page.waitForSelector('#hand-in-error');
    expect(await page.textContent('#hand-in-error')).toContain('Домашку уже приняли');
    // An accepted homework takes no more answers: the page says so instead of offering the editor.
    await page.reload();
    await page.waitForSelector('#homework-accepted');
    expect(await page.locator('#answer, #hand-in, #file-input').count()).toBe(0);
    expect(await page.textContent('#homework-status')).toBe('принято');
  }, 60_000);
});

describe('the course page', () => {
  it('lists chapters and lessons with goal statuses, document sections and homework, never items', async () => {
    await page.goto(`${w.url}/courses/${w.stack.course}`);
    const lesson = page.locator(`[data-lesson="${lessonBoth()}"]`);
    await lesson.waitFor();
    expect(await lesson.textContent()).toContain('разобрана');
    expect(await lesson.textContent()).toContain('Разделы документа: Команда');
    expect(await lesson.locator(`a[href$="#homework"]`).count()).toBe(1);
    const content = String(await page.textContent('.content'));
    expect(content).not.toContain('Упражнение');
    expect(content).not.toContain('Ученица показала');
    await shoot('course', `/courses/${w.stack.course}`);
  }, 60_000);
});

describe('documents and profile', () => {
  it('fills a document section by hand and the agent reads it in artifact', async () => {
    await page.goto(`${w.url}/documents`);
    const block = page.locator('[data-block="team"]');
    await block.locator('textarea[name="lead"]').fill('Аня');
    await block.locator('textarea[name="size"]').fill('7');
    await block.locator('textarea[name="split"]').fill('две пары и тестировщик');
    await block.locator('button.save').click();
    await block.locator('.badge.ok').waitFor();
    const doc = data(
      await w.anna.callTool('artifact', { course: w.stack.course, artifact: 'agreements_log', space: 'acme' }),
    ) as { artifact: { blocks: Array<{ key: string; values?: Record<string, string> }> } };
    expect(doc.artifact.blocks.find((b) => b.key === 'team')?.values).toMatchObject({
      lead: 'Аня',
      size: '7',
      split: 'две пары и тестировщик',
    });
    // A many section: a new row, then a refusal in words (an unknown row is not on the page; a value too long is).
    const rows = page.locator('[data-block="agreements"]');
    await rows.locator('.new-row textarea[name="topic"]').fill('Ретро раз в две недели');
    await rows.locator('.add-row').click();
    await rows.locator('tr[data-row="A1"]').waitFor();
    await rows.locator('tr[data-row="A1"] textarea[name="driver"]').fill('Аня');
    await rows.locator('tr[data-row="A1"] textarea[name="area"]').fill('Процессы');
    await rows.locator('tr[data-row="A1"] .save-row').click();
    const itemsOf = async () =>
      (
        data(
          await w.anna.callTool('artifact', { course: w.stack.course, artifact: 'agreements_log', space: 'acme' }),
        ) as {
          artifact: { blocks: Array<{ key: string; items?: Array<Record<string, string>> }> };
        }
      ).artifact.blocks.find((b) => b.key === 'agreements')?.items ?? [];
    await eventually(async () =>
      expect(await itemsOf()).toEqual([{ id: 'A1', topic: 'Ретро раз в две недели', driver: 'Аня', area: 'Процессы' }]),
    );
    await rows.locator('.new-row textarea[name="topic"]').fill('х'.repeat(4001));
    await rows.locator('.add-row').click();
    await rows.locator('.error').waitFor();
    expect(await rows.locator('.error').textContent()).toContain('4000');
    await rows.locator('.new-row textarea[name="topic"]').fill('Временная');
    await rows.locator('.add-row').click();
    await rows.locator('tr[data-row="A2"]').waitFor();
    await rows.locator('tr[data-row="A2"] .delete-row').click();
    await rows.locator('tr[data-row="A2"]').waitFor({ state: 'detached' });
    expect((await itemsOf()).map((r) => r.id)).toEqual(['A1']);
    await shoot('documents', '/documents');
  }, 60_000);

  it('edits the profile, and the next start_lesson brings it in its history', async () => {
    await page.goto(`${w.url}/profile`);
    await page.fill('#p-role', 'тимлид платформенной команды');
    await page.click('#save-role');
    await page.waitForSelector('[data-key="role"] .muted');
    const started = data(await w.anna.callTool('start_lesson', { lesson: w.stack.lesson('l-text'), space: 'acme' }));
    expect(JSON.stringify(started.history)).toContain('тимлид платформенной команды');
    await shoot('profile', '/profile');
  }, 60_000);
});

describe('reports', () => {
  it('shows the student reports and the author answer', async () => {
    const started = data(await w.anna.callTool('start_lesson', { lesson: w.stack.lesson('l-text'), space: 'acme' }));
    const report = data(
      await w.anna.callTool('report_issue', {
        session: started.session,
        kind: 'material_issue',
        text: 'В примере опечатка в слове «ретро»',
      }),
    );
    data(
      await w.curator.callTool('resolve_report', {
        report: report.report,
        status: 'fixed',
        resolution: 'Поправили пример',
      }),
    );
    await page.goto(`${w.url}/reports`);
    await page.waitForSelector('#reports .report');
    const shown = await page.textContent('#reports');
    expect(shown).toContain('опечатка в слове');
    expect(shown).toContain('Поправили пример');
    expect(shown).toContain('курс поправили');
    await shoot('reports', '/reports');
  }, 60_000);
});

describe('accessibility', () => {
  it('every student page, and the sign-in page, has no moderate or worse axe violation at 1280 and 390 px', async () => {
    const pages = [
      '/',
      '/catalog',
      `/courses/${w.stack.course}`,
      `/lessons/${encodeURIComponent(lessonBoth())}`,
      '/documents',
      '/profile',
      '/reports',
    ];
    const phone = await w.context(true);
    await phone.addCookies(await ctx.cookies());
    const small = await phone.newPage();
    try {
      for (const p of [page, small]) {
        for (const path of pages) {
          await p.goto(`${w.url}${path}`);
          await p.waitForSelector('main.content h1');
          await p.waitForLoadState('networkidle');
          await expectNoSeriousViolations(p);
        }
      }
      const anon = await w.browser.newPage();
      await anon.goto(`${w.url}/login`);
      await expectNoSeriousViolations(anon);
      await anon.close();
    } finally {
      await phone.close();
    }
  }, 120_000);
});

describe('another student, the catalog and an announcement', () => {
  let boris: BrowserContext;
  let bp: Page;
  beforeAll(async () => {
    boris = await w.context();
    bp = await boris.newPage();
    await signIn(bp, w.url, 'boris@hw', '/catalog');
  }, 60_000);
  afterAll(async () => boris?.close());

  it('enrolls from the catalog and lands on the first lesson', async () => {
    const card = bp.locator(`[data-course="${w.stack.course}"]`);
    await card.locator('button.enroll').click();
    await bp.waitForURL((u) => u.pathname.startsWith('/lessons/'));
    await bp.waitForSelector('#lesson-title');
    await bp.goto(`${w.url}/`);
    await bp.waitForSelector(`#my-courses [data-course="${w.stack.course}"]`);
  }, 60_000);

  it('subscribes to an announcement, whose page shows only its objectives', async () => {
    const { announceCourse } = await import('../../../../../test/support/courses.ts');
    const id = await announceCourse(w.env, w.stack.enrollment.db, {
      title: 'Фасилитация встреч',
      summary: 'Скоро',
      objectives: ['Вести встречу по повестке', 'Подводить итоги'],
    });
    await bp.goto(`${w.url}/catalog`);
    const card = bp.locator(`[data-course="${id}"]`);
    expect(await card.locator('.objectives').textContent()).toContain('Вести встречу по повестке');
    await card.locator('button.notify').click();
    await card.locator('.notice').waitFor();
    await shoot('catalog', '/catalog', bp);
    await bp.goto(`${w.url}/courses/${id}`);
    await bp.waitForSelector('#announced-objectives');
    expect(await bp.textContent('#announced-objectives')).toContain('Подводить итоги');
    expect(await bp.locator('.lesson').count()).toBe(0);
  }, 60_000);

  it('never shows another student data: own homework and documents only, other spaces refused', async () => {
    await bp.goto(`${w.url}/lessons/${encodeURIComponent(lessonBoth())}`);
    await bp.waitForSelector('#homework-title');
    const lesson = await bp.textContent('.content');
    expect(lesson).not.toContain('Встречу провёл');
    expect(lesson).not.toContain('protocol.pdf');
    await bp.goto(`${w.url}/documents`);
    await bp.waitForSelector('.document');
    expect(await bp.textContent('.content')).not.toContain('Ретро раз в две недели');
    const csrf = await bp.getAttribute('meta[name="csrf-token"]', 'content');
    const call = (tool: string, args: object) =>
      bp.request.post(`${w.url}/api/student/tools/${tool}`, { data: args, headers: { 'x-csrf-token': String(csrf) } });
    const theirs = await (await call('my_homework', { lesson: lessonBoth(), space: 'acme' })).json();
    expect(theirs).toMatchObject({ ok: false, error: { code: 'space_not_available' } });
    const doc = await (
      await call('artifact', { course: w.stack.course, artifact: 'agreements_log', space: 'acme' })
    ).json();
    expect(doc).toMatchObject({ ok: false, error: { code: 'space_not_available' } });
  }, 60_000);
});

describe('CSRF, bounds and sign-out', () => {
  it('refuses a state-changing request without the CSRF token, and one with a wrong token', async () => {
    const url = `${w.url}/api/student/tools/set_space`;
    const none = await page.request.post(url, { data: { space: 'personal' } });
    expect(none.status()).toBe(403);
    expect((await none.json()).failure).toContain('проверочного токена');
    const wrong = await page.request.post(url, {
      data: { space: 'personal' },
      headers: { 'x-csrf-token': 'x'.repeat(43) },
    });
    expect(wrong.status()).toBe(403);
    expect(data(await w.anna.callTool('whoami')).space).toBe('acme');
    const logoutWithout = await page.request.post(`${w.url}/logout`, { form: { csrf: 'nope' }, maxRedirects: 0 });
    expect(logoutWithout.status()).toBe(403);
  });

  it('bounds input: anonymous, unknown tool, non-JSON, oversized body, foreign next, login form without its cookie', async () => {
    const csrf = String(await page.getAttribute('meta[name="csrf-token"]', 'content'));
    const headers = { 'x-csrf-token': csrf };
    const anon = await w.browser.newContext();
    expect((await anon.request.post(`${w.url}/api/student/tools/whoami`, { data: {} })).status()).toBe(401);
    const forged = await anon.request.post(`${w.url}/api/student/tools/whoami`, {
      data: {},
      headers: { cookie: `studium_session=${'A'.repeat(5000)}` },
    });
    expect(forged.status()).toBe(401);
    const login = await anon.request.post(`${w.url}/login`, {
      form: { login: 'anna@hw', password: 'anna-secret-pass-1', csrf: 'x', next: '/' },
      maxRedirects: 0,
    });
    expect(login.status()).toBe(403);
    await anon.close();
    const unknown = await page.request.post(`${w.url}/api/student/tools/start_lesson`, { data: {}, headers });
    expect(unknown.status()).toBe(404);
    const notJson = await page.request.post(`${w.url}/api/student/tools/whoami`, {
      data: Buffer.from('{"oops'),
      headers: { ...headers, 'content-type': 'application/json' },
    });
    expect(notJson.status()).toBe(400);
    const huge = await page.request.post(`${w.url}/api/student/tools/remember`, {
      data: { kind: 'fact', key: 'role', text: 'x'.repeat(600 * 1024) },
      headers,
    });
    expect(huge.status()).toBe(413);
    const long = await (
      await page.request.post(`${w.url}/api/student/tools/remember`, {
        data: { kind: 'fact', key: 'role', text: 'x'.repeat(20_000) },
        headers,
      })
    ).json();
    expect(long).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    const fresh = await w.browser.newContext();
    const fp = await fresh.newPage();
    await fp.goto(`${w.url}/login?next=//evil.example/x`);
    await fp.fill('#login', 'anna@hw');
    await fp.fill('#password', 'anna-secret-pass-1');
    await Promise.all([fp.waitForURL((u) => !u.pathname.startsWith('/login')), fp.click('#submit')]);
    expect(new URL(fp.url()).host).toBe(new URL(w.url).host);
    // Guessing passwords: the failures of a login from one address (LOGIN_ATTEMPTS_PER_MINUTE, 10) end in 429.
    // The signed-in page is closed first: its own script may still be calling a tool, and once
    // the cookies are gone that call's 401 sends the page to /login?next=…, which would
    // interrupt the navigation below.
    await fp.close();
    await fresh.clearCookies();
    const gp = await fresh.newPage();
    await gp.goto(`${w.url}/login`);
    // Every form answer carries a fresh token (cookie and field): each attempt sends the last one.
    let token = String(await gp.getAttribute('input[name="csrf"]', 'value'));
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await gp.request.post(`${w.url}/login`, {
        form: { login: 'nobody@hw', password: `guess-${i}`, csrf: token, next: '/' },
        maxRedirects: 0,
      });
      statuses.push(res.status());
      token = /name="csrf" value="([^"]+)"/.exec(await res.text())?.[1] ?? '';
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    await fresh.close();
  }, 60_000);

  it('signs out: the session is gone, and its cookie no longer works', async () => {
    await page.goto(`${w.url}/`);
    // The page's own calls (whoami, list_my_courses) are answered first: one still on its way
    // when the session ends would be answered 401 and send the page to /login?next=/ instead.
    await page.waitForSelector('#space');
    await page.waitForSelector('#my-courses');
    const cookie = (await ctx.cookies()).find((c) => c.name === 'studium_session')?.value;
    await Promise.all([page.waitForURL((u) => u.pathname === '/login'), page.click('#signout')]);
    expect(await page.textContent('.notice')).toContain('Вы вышли');
    const again = await w.browser.newContext();
    const res = await again.request.post(`${w.url}/api/student/tools/whoami`, {
      data: {},
      headers: { cookie: `studium_session=${cookie}` },
    });
    expect(res.status()).toBe(401);
    await again.close();
    await page.goto(`${w.url}/profile`);
    expect(new URL(page.url()).pathname).toBe('/login');
  }, 60_000);
});

describe('behind a TLS-terminating proxy', () => {
  it('marks the session cookie Secure when the proxy says https', async () => {
    const { startEdge } = await import('../../../../../test/support/stack.ts');
    const tls = await startEdge(w.env, { TRUST_PROXY: 'true' });
    try {
      const proto = { 'x-forwarded-proto': 'https' };
      const form = await fetch(`${tls.url}/login`, { headers: proto });
      const loginCookie = String(form.headers.get('set-cookie'));
      expect(loginCookie).toContain('Secure');
      const token = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
      const res = await fetch(`${tls.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...proto, 'content-type': 'application/x-www-form-urlencoded', cookie: `studium_login=${token}` },
        body: new URLSearchParams({
          login: 'boris@hw',
          password: 'boris-secret-pass-1',
          csrf: token,
          next: '/',
        }).toString(),
      });
      expect(res.status).toBe(303);
      const session = res.headers.getSetCookie().find((c) => c.startsWith('studium_session='));
      expect(session).toMatch(/HttpOnly/);
      expect(session).toMatch(/SameSite=Lax/);
      expect(session).toMatch(/Secure/);
    } finally {
      await tls.close();
    }
  }, 60_000);
});
