import { phraseFor } from '@studium/contracts';
import { eventually } from '@studium/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousViolations } from '../../../../../test/support/axe.ts';
import { connectAgent, data } from '../../../../../test/support/clients.ts';
import { passLesson } from '../../../../../test/support/teach.ts';
import { apiAs, openPage, startCabinetStack } from './stack.ts';

// Issue 24: the author's cabinet in headless Chromium against the real services — notes on the
// release with the curator's agent on /authoring, reports, homework review, testers, passes.
let s: Awaited<ReturnType<typeof startCabinetStack>>;
let curator: Page;
let course: string;
let unopened: string;
const SHOTS = new URL('../../../../../docs/img/', import.meta.url).pathname;

/** Writes docs/img/<file> when STUDIUM_SCREENSHOTS=1 (the docs' screenshots), else nothing. */
async function shot(page: { screenshot(o: { path: string; fullPage: boolean }): Promise<unknown> }, file: string) {
  if (process.env.STUDIUM_SCREENSHOTS === '1') await page.screenshot({ path: `${SHOTS}${file}`, fullPage: false });
}

beforeAll(async () => {
  s = await startCabinetStack('cabinet');
  ({ course, unopened } = s);
  curator = await s.signIn('curator@hw');
}, 120_000);

afterAll(async () => {
  await s?.close();
});

const signIn = (user: string, width?: number) => s.signIn(user, width);
let submissionId = '';
/** Every page of the cabinet, with this file's course and a submission of its homework. */
function cabinetPages(): string[] {
  const c = `/cabinet/courses/${course}`;
  const pages = ['/cabinet', c, `${c}/release`, `${c}/notes`, `${c}/reports`, `${c}/passes`, `${c}/testers`];
  return [...pages, '/cabinet/homework', `/cabinet/homework/${encodeURIComponent(submissionId)}`];
}
const open = (page: Page, path: string) => openPage(page, s.edge.url, path);
type Note = {
  note: string;
  target: string;
  status: string;
  waiting_on: string | null;
  quote: string | null;
  replies: Array<{ text: string }>;
};
const agentNotes = async (status?: string | null) =>
  data(await s.curatorAgent.callTool('course_notes', { course, ...(status !== undefined ? { status } : {}) }))
    .notes as Note[];

describe('notes: the cabinet and the curator’s agent', () => {
  const target = 'goal.l-text/term:T1';
  let note = '';

  it('the curator writes a note on a goal item with the selected text as its quote', async () => {
    await open(curator, `/cabinet/courses/${course}/release`);
    const place = curator.locator(`[data-place="${target}"]`);
    await place.locator('.goal-title').waitFor();
    await place.evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el.querySelector('.goal-title')!);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
    });
    await place.locator('button.note-open').click();
    const form = curator.locator(`form.note-form[data-target="${target}"]`);
    expect(await form.locator('textarea[name=quote]').inputValue()).toBe('Термин');
    await form.locator('textarea[name=text]').fill('Приведите пример термина из практики команды');
    await form.locator('button[type=submit]').click();
    await expect.poll(() => form.locator('.notice').textContent()).toContain('Пункт «Термин»');
    await shot(curator, `cabinet-release-desktop.png`);
  });

  it('the agent reads it in course_notes and answers with reply_note: «Агент спрашивает»', async () => {
    const mine = (await agentNotes()).find((n) => n.target === target);
    expect(mine).toMatchObject({ status: 'open', waiting_on: 'agent', quote: 'Термин' });
    note = mine!.note;
    const replied = data(await s.curatorAgent.callTool('reply_note', { note, text: 'Из какой области пример?' }));
    expect(replied).toMatchObject({ status: 'open', waiting_on: 'author' });
    await open(curator, `/cabinet/courses/${course}/notes`);
    await curator.locator(`#notes-asks [data-note="${note}"]`).waitFor();
    expect(await curator.locator(`#notes-asks [data-note="${note}"] .thread`).textContent()).toContain(
      'Из какой области пример?',
    );
  });

  it('the agent resolves it; the curator returns it with a comment, then accepts the next resolution', async () => {
    data(await s.curatorAgent.callTool('resolve_note', { note, comment: 'Добавил пример в версии 2' }));
    await open(curator, `/cabinet/courses/${course}/notes`);
    const card = curator.locator(`#notes-asks [data-note="${note}"]`);
    expect(await card.getAttribute('data-status')).toBe('done');
    await card.locator('textarea[name=reply]').fill('Пример не про термин — возьмите закупку');
    await card.locator('button.act-return').click();
    await curator.locator(`#notes-agent [data-note="${note}"][data-status="open"]`).waitFor();
    const reopened = (await agentNotes()).find((n) => n.note === note);
    expect(reopened).toMatchObject({ status: 'open', waiting_on: 'agent' });
    expect(reopened?.replies.at(-1)?.text).toBe('Пример не про термин — возьмите закупку');
    await shot(curator, `cabinet-notes-desktop.png`);

    data(await s.curatorAgent.callTool('resolve_note', { note, comment: 'Пример про закупку, версия 3' }));
    await curator.reload();
    await curator.locator(`#notes-asks [data-note="${note}"] button.act-accept`).click();
    await curator.locator(`#notes-accepted [data-note="${note}"]`).waitFor();
    expect((await agentNotes('accepted')).find((n) => n.note === note)).toMatchObject({
      status: 'accepted',
      waiting_on: null,
    });
  });
});

describe('notes: a reply being typed stays on its note', () => {
  it('when another note leaves the list above it, the typed text moves with its own card', async () => {
    await open(curator, `/cabinet/courses/${course}/notes`);
    const ids: string[] = [];
    for (const text of ['Первая заметка о термине', 'Вторая заметка о термине', 'Третья заметка о термине']) {
      const r = await apiAs(curator, 'write_note', { course, target: 'goal.l-text/term:T1', text });
      expect(r.status).toBe(200);
      ids.push(r.body.data.note);
      data(await s.curatorAgent.callTool('reply_note', { note: r.body.data.note, text: 'Уточните, пожалуйста' }));
    }
    const [first, second, third] = ids as [string, string, string];
    await curator.reload();
    const card = (id: string) => curator.locator(`#notes-asks [data-note="${id}"]`);
    await card(third).waitFor();
    await card(second).locator('textarea[name=reply]').fill('Ответ на вторую заметку');
    // The first note leaves «Агент спрашивает»: the cards below it move up a place.
    await card(first).locator('textarea[name=reply]').fill('Ответ на первую');
    await card(first).locator('button.act-reply').click();
    await curator.locator(`#notes-agent [data-note="${first}"]`).waitFor();
    expect(await card(second).locator('textarea[name=reply]').inputValue()).toBe('Ответ на вторую заметку');
    expect(await card(third).locator('textarea[name=reply]').inputValue()).toBe('');
  });
});

describe('reports, passes and homework', () => {
  const lesson = () => s.stack.lesson('l-text');
  const hostile = '<b>опечатка</b> <img src=x onerror=alert(1)>';

  it('a report answered in the cabinet reaches the student’s next start_lesson as a closed report', async () => {
    const started = data(await s.student.callTool('start_lesson', { lesson: lesson(), space: 'acme' }));
    data(await s.student.callTool('report_issue', { session: started.session, kind: 'material_issue', text: hostile }));
    await passLesson(s.student, { lesson: lesson(), space: 'acme' }, { evidence: 'Сказала: «<i>договорились</i>»' });
    await open(curator, `/cabinet/courses/${course}/reports`);
    const card = curator.locator('article.report').first();
    await card.waitFor();
    // Student text is shown as quoted text, never as HTML; the lesson by its title.
    expect(await card.locator('.student-text').textContent()).toContain(hostile);
    expect(await card.textContent()).toContain('урок «Текстовая домашка»');
    expect(await card.locator('.student-text img, .student-text b').count()).toBe(0);
    await shot(curator, `cabinet-reports-desktop.png`);
    await card.locator('select[name=status]').selectOption('fixed');
    await card.locator('textarea[name=resolution]').fill('Опечатку поправили в версии 2');
    await card.locator('button[type=submit]').click();
    await curator.locator('#no-reports').waitFor();
    const next = data(await s.student.callTool('start_lesson', { lesson: lesson(), space: 'acme' }));
    expect(next.closed_reports).toEqual([
      expect.objectContaining({ status: 'fixed', resolution: 'Опечатку поправили в версии 2' }),
    ]);
  });

  it('passes show where the student is and the evidence, quoted', async () => {
    await open(curator, `/cabinet/courses/${course}/passes`);
    const run = curator.locator('article.run[data-student="anna@hw"]').first();
    await run.waitFor();
    expect(await run.locator('.student-text').first().textContent()).toContain('«<i>договорились</i>»');
    expect(await run.locator('.student-text i').count()).toBe(0);
    // Objectives and items in words: the objective's text, the item's title and its kind in Russian.
    const objective = run.locator('[data-objective="o-l-text"]');
    expect(await objective.locator('p').first().textContent()).toContain('Цель урока Текстовая домашка');
    expect(await objective.locator('[data-goal="term:T1"]').textContent()).toMatch(/^термин Термин — разобран/);
    // The course-wide counts (pass_counts): the lesson's row says how many started it.
    await curator.locator('#reached tr.lesson').first().waitFor();
    expect(await curator.locator('#reached tr.lesson').first().textContent()).toMatch(/начали [1-9]\d*, прошли \d+/);
    await shot(curator, `cabinet-passes-desktop.png`);
  });

  it('a homework returned in the cabinet shows its comment in my_homework', async () => {
    await eventually(async () => {
      const mine = data(await s.student.callTool('my_homework', { lesson: lesson(), space: 'acme' }));
      expect((mine.items as Array<{ status: string }>)[0]?.status).toBe('Assigned');
    });
    data(
      await s.student.callTool('submit_homework', {
        lesson: lesson(),
        answer: 'Договорились <script>x</script>',
        space: 'acme',
      }),
    );
    await open(curator, '/cabinet/homework');
    // The queue names the course and lesson by title and the student by name, the login beside it.
    const item = curator.locator('#queue article').first();
    await item.waitFor();
    expect(await item.locator('h2').textContent()).toBe('Договорённости в команде · Текстовая домашка');
    expect(await item.locator('.student').textContent()).toBe('Анна Смирнова (anna@hw)');
    await curator.locator('#queue article a').first().click();
    await curator.waitForSelector('#submission-status');
    submissionId = decodeURIComponent(new URL(curator.url()).pathname.split('/').pop() ?? '');
    expect(await curator.locator('.student-text').first().textContent()).toContain('<script>x</script>');
    await curator.fill('textarea[name=comment]', 'Добавьте срок и ответственного');
    await curator.click('#return');
    await curator.locator('#submission-status[data-status="Returned"]').waitFor();
    expect(await curator.textContent('main.content h1')).toBe('Домашка: Договорённости в команде · Текстовая домашка');
    await shot(curator, `cabinet-homework-desktop.png`);
    const mine = data(await s.student.callTool('my_homework', { lesson: lesson(), space: 'acme' }));
    expect((mine.items as Array<{ last_comment: string }>)[0].last_comment).toBe('Добавьте срок и ответственного');
  });
});

describe('testers of an unopened course', () => {
  it('a tester granted in the cabinet finds the course in the catalog, marked, and studies it', async () => {
    const tess = await connectAgent(
      'v1',
      `${s.edge.url}/mcp`,
      (await s.stack.enrollment.admin.issueToken('tess@hw')).token,
    );
    try {
      const before = await tess.callTool('enroll', { course: unopened });
      expect((before.structuredContent as { error?: { code: string } }).error?.code).toBe('course_not_published');
      await open(curator, `/cabinet/courses/${unopened}/testers`);
      await curator.fill('#grant input[name=login]', 'tess@hw');
      await curator.click('#grant button[type=submit]');
      await curator.locator('#testers [data-tester="tess@hw"]').waitFor();
      await shot(curator, `cabinet-testers-desktop.png`);
      // The agent's catalog lists it as a course to test, enrollable (no announcement to the tester).
      type Entry = { course: string; upcoming: boolean; testing?: boolean };
      await eventually(async () => {
        const catalog = data(await tess.callTool('list_catalog', {})).courses as Entry[];
        expect(catalog.find((c) => c.course === unopened)).toMatchObject({ upcoming: false, testing: true });
      });
      // So does the web catalog: marked, and «Записаться» enrolls.
      const page = await signIn('tess@hw');
      await page.goto(`${s.edge.url}/catalog`);
      const card = page.locator(`[data-course="${unopened}"]`);
      await card.waitFor({ timeout: 20_000 });
      expect(await card.locator('.badge').textContent()).toBe('тестирование');
      await shot(page, 'web-catalog-testing-desktop.png');
      await card.locator('button.enroll').click();
      await page.waitForURL((u) => u.pathname.startsWith('/lessons/'));
      const started = data(await tess.callTool('start_lesson', { course: unopened }));
      expect(started.session).toEqual(expect.any(String));
      await page.goto(`${s.edge.url}/`);
      const mine = page.locator(`#my-courses [data-course="${unopened}"]`);
      await mine.waitFor({ timeout: 20_000 });
      expect(await mine.textContent()).toContain('Договорённости в команде');
      expect(await mine.textContent()).toContain('тестирование: курс ещё не открыт');
      await page.context().close();
    } finally {
      await tess.close();
    }
  });
});

describe('words, not ids', () => {
  // Course ids, release keys of lessons, objectives and items, item kinds, tool names: none of it
  // is for a person to read (it stays in links and data attributes).
  const ID =
    /crs_|tst-|course_notes|\b(term|choice|execution|misconception)\b|\b[a-z]+:[A-Z]\d\b|\b[op]?-?l-(text|both|files|none)\b/;

  it('every cabinet page shows titles and Russian words, the course page headed by its title', async () => {
    await open(curator, `/cabinet/courses/${course}`);
    await expect.poll(() => curator.textContent('#course-title')).toBe('Договорённости в команде');
    expect(await curator.textContent('#course-name')).toBe('Договорённости в команде');
    await shot(curator, 'cabinet-course-desktop.png');
    for (const path of cabinetPages()) {
      await open(curator, path);
      await curator.waitForLoadState('networkidle');
      // biome-ignore lint/performance/useDomNodeTextContent: what a person reads is the rendered text
      expect(await curator.innerText('main.content'), path).not.toMatch(ID);
    }
  });

  it('filters the homework queue by one of the curator’s courses, chosen by title', async () => {
    await open(curator, '/cabinet/homework');
    await curator.selectOption('select[name=status]', 'Returned');
    const filter = curator.locator('select[name=course]');
    await expect
      .poll(() => filter.locator('option').allTextContents())
      .toEqual(['все мои курсы', 'Договорённости в команде']);
    expect(await filter.locator('option').nth(1).getAttribute('value')).toBe(course);
    const asked = curator.waitForRequest(
      (r) => r.url().endsWith('/api/cabinet/tools/homework_queue') && r.postDataJSON()?.course === course,
    );
    await filter.selectOption(course);
    await asked;
    await curator.locator('#queue article').first().waitFor();
    expect(await curator.locator('#queue article h2').first().textContent()).toContain('Договорённости в команде');
    await shot(curator, 'cabinet-queue-desktop.png');
  });
});

describe('accessibility', () => {
  it('no cabinet page has a moderate or worse axe violation, at 1280 and at 390 px', async () => {
    const phone = await signIn('curator@hw', 390);
    for (const page of [curator, phone]) {
      for (const path of cabinetPages()) {
        await open(page, path);
        await page.waitForLoadState('networkidle');
        await expectNoSeriousViolations(page);
      }
    }
    await phone.context().close();
  });
});

describe('access and hostile input', () => {
  const auditRows = (kind: string, user: string) =>
    s.edge.database.db
      .selectFrom('audit_log')
      .select(['endpoint', 'tool'])
      .where('kind', '=', kind)
      .where('user_id', '=', user)
      .execute();

  it('a curator who does not teach the course gets 403 on its passes, and an audit row', async () => {
    const other = await signIn('other@hw');
    await open(other, `/cabinet/courses/${course}/passes`);
    await expect.poll(() => other.locator('#passes-error').textContent(), { timeout: 20_000 }).toBe(phraseFor(403));
    expect(await auditRows('access_denied', 'other@hw')).toContainEqual({ endpoint: 'web:cabinet', tool: 'goal_runs' });
    await other.context().close();
  });

  it('refuses a write without the page’s CSRF token, over-long text, an agent-only tool and a huge body', async () => {
    await open(curator, '/cabinet');
    const args = { course, target: 'course', text: 'Без токена' };
    expect((await apiAs(curator, 'write_note', args, false)).status).toBe(403);
    const long = await apiAs(curator, 'write_note', { ...args, text: 'я'.repeat(10_001) });
    expect(long.body.error.code).toBe('invalid_arguments');
    const badTarget = await apiAs(curator, 'write_note', { ...args, target: 'x'.repeat(129) });
    expect(badTarget.body.error.code).toBe('invalid_arguments');
    expect((await apiAs(curator, 'resolve_note', { note: 'n', comment: 'c' })).status).toBe(404);
    expect((await apiAs(curator, 'grant_tester', { course: unopened, user: 'not a login' })).body.error.code).toBe(
      'invalid_arguments',
    );
    // A login that is no user is refused in words, and no grant is kept.
    const ghost = await apiAs(curator, 'grant_tester', { course: unopened, user: 'ghost@hw' });
    expect(ghost.body.error).toMatchObject({ code: 'user_not_found', user: 'ghost@hw' });
    expect(ghost.body.error.message).toContain('ghost@hw');
    expect((await apiAs(curator, 'course_testers', { course: unopened })).body.data.testers).not.toContain('ghost@hw');
    expect((await apiAs(curator, 'write_note', `{"text":"${'a'.repeat(2_000_000)}"}`)).status).toBe(413);
    // Nothing of it was written.
    expect((await agentNotes(null)).filter((n) => n.target === 'course')).toEqual([]);
  });

  it('another course’s objects: a non-instructor cannot grant testers or review its homework', async () => {
    const other = await signIn('other@hw');
    await open(other, '/cabinet');
    expect((await apiAs(other, 'grant_tester', { course: unopened, user: 'x@hw' })).body.failure).toBe(phraseFor(403));
    const queue = data(await s.curatorAgent.callTool('homework_queue', { status: 'Returned' }));
    const submission = (queue.items as Array<{ submission: string }>)[0].submission;
    expect((await apiAs(other, 'accept_homework', { submission })).body.failure).toBe(phraseFor(403));
    expect((await auditRows('access_denied', 'other@hw')).map((r) => r.tool)).toEqual(
      expect.arrayContaining(['grant_tester', 'accept_homework']),
    );
    await other.context().close();
  });

  it('a student gets the 403 page and the API refuses them, in the journal', async () => {
    const anna = await signIn('anna@hw');
    const res = await anna.goto(`${s.edge.url}/cabinet`);
    expect(res?.status()).toBe(403);
    await expectNoSeriousViolations(anna);
    // With the page's token (the student pages' session is the same): refused for the role, not for CSRF.
    await anna.goto(`${s.edge.url}/`);
    await anna.waitForSelector('meta[name="csrf-token"]', { state: 'attached' });
    const call = await apiAs(anna, 'list_courses', {});
    expect(call.status).toBe(403);
    expect(await auditRows('author_role_required', 'anna@hw')).toContainEqual({
      endpoint: 'web:cabinet',
      tool: 'list_courses',
    });
    await anna.context().close();
  });
});

describe('phone width', () => {
  it('the cabinet pages fit 390 px without sideways scrolling', async () => {
    const phone = await signIn('curator@hw', 390);
    for (const [name, path] of [
      ['courses', '/cabinet'],
      ['course', `/cabinet/courses/${course}`],
      ['release', `/cabinet/courses/${course}/release`],
      ['notes', `/cabinet/courses/${course}/notes`],
      ['passes', `/cabinet/courses/${course}/passes`],
      ['queue', '/cabinet/homework'],
    ]) {
      await open(phone, path);
      await phone.waitForLoadState('networkidle');
      const wide = await phone.evaluate(() => document.documentElement.scrollWidth);
      expect(wide, name).toBeLessThanOrEqual(392);
      await shot(phone, `cabinet-${name}-phone.png`);
    }
    await phone.context().close();
  });
});
