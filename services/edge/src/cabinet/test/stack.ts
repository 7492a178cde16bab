import { createHash } from 'node:crypto';
import { publishRelease } from '@studium/contracts';
import { createTestEnv } from '@studium/testing';
import type { Page } from 'playwright-core';
import { launchChromium } from '../../../../../test/support/browser.ts';
import { connectAgent } from '../../../../../test/support/clients.ts';
import { startLessons } from '../../../../../test/support/lessons.ts';
import { startEdge } from '../../../../../test/support/stack.ts';
import { canonicalJson } from '../../../../courses/src/domain/canonical.ts';
import { homeworkRelease } from '../../../../homework/test/support/fixture.ts';
import { startHomeworkStack } from '../../../../homework/test/support/stack.ts';

const PASSWORD = 'cabinet-pass-2026';

/**
 * The real services behind the cabinet (enrollment, courses, homework, lessons) and the edge; the
 * homework stack's course (curator@hw teaches it, other@hw does not, anna@hw studies it in acme), a
 * second course of curator@hw published but not opened, a would-be tester tess@hw; the curator's
 * agent on /authoring, anna's on /mcp; one Chromium.
 */
export async function startCabinetStack(name: string) {
  const env = await createTestEnv(name);
  const stack = await startHomeworkStack(env);
  const lessons = await startLessons(env, { CONTEXT_TIMEOUT_MS: '1000' });
  const edge = await startEdge(env, { REQUEST_TIMEOUT_MS: '4000' });
  const a = stack.enrollment.admin;
  await a.upsertUser('tess@hw', 'Тестер Тая', ['Student']);
  // A full name unlike the login: the cabinet shows people by name (issue 31).
  await a.upsertUser('anna@hw', 'Анна Смирнова', ['Student']);
  for (const u of ['curator@hw', 'other@hw', 'anna@hw', 'tess@hw']) await a.setPassword(u, PASSWORD);
  const curatorAgent = await connectAgent('v2', `${edge.url}/authoring`, (await a.issueToken('curator@hw')).token);
  const student = await connectAgent('v1', `${edge.url}/mcp`, (await a.issueToken('anna@hw')).token);
  const release = homeworkRelease(`tst-${env.prefix}`, ['curator@hw']);
  const published = await env.bus.request(publishRelease, null, {
    release: release as unknown as Record<string, unknown>,
    digest: createHash('sha256').update(canonicalJson(release)).digest('hex'),
    commit: 'abc1234',
    publisher: 'curator@hw',
  });
  if (!published.ok) throw new Error(JSON.stringify(published.error));
  const browser = await launchChromium();
  return {
    env,
    stack,
    edge,
    curatorAgent,
    student,
    browser,
    course: stack.course,
    unopened: published.data.course,
    /** A signed-in page of its own browser context, at desktop width or `width`. */
    async signIn(user: string, width = 1280): Promise<Page> {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${edge.url}/login?next=/cabinet`);
      await page.fill('#login', user);
      await page.fill('#password', PASSWORD);
      await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('button[type=submit]')]);
      return page;
    },
    async close() {
      await browser.close();
      await curatorAgent.close();
      await student.close();
      await edge.close();
      await lessons.close();
      await stack.close();
      await env.cleanup();
    },
  };
}

/** Opens a cabinet page and waits for its heading. */
export async function openPage(page: Page, base: string, path: string): Promise<void> {
  await page.goto(`${base}${path}`);
  await page.waitForSelector('main.content h1', { timeout: 20_000 });
}

/** Calls the cabinet's tool API from the page, with the page's CSRF token unless `csrf` is false. */
export async function apiAs(page: Page, tool: string, body: unknown, csrf = true) {
  return page.evaluate(
    async ({ tool, body, csrf }) => {
      const token = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
      const res = await fetch(`/api/cabinet/tools/${tool}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(csrf ? { 'x-csrf-token': token } : {}) },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    },
    { tool, body, csrf },
  );
}
