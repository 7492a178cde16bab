import { createTestEnv, type TestEnv } from '@studium/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../../../../test/support/browser.ts';
import { type AgentClient, connectAgent } from '../../../../../test/support/clients.ts';
import { startKnowledge } from '../../../../../test/support/knowledge.ts';
import { startLessons } from '../../../../../test/support/lessons.ts';
import { onFreePort } from '../../../../../test/support/oauth.ts';
import { startEdge } from '../../../../../test/support/stack.ts';
import { startHomeworkStack } from '../../../../homework/test/support/stack.ts';

/** Passwords of the fixture's students (set through enrollment's admin, as `studium user password` does). */
export const PASSWORDS = { 'anna@hw': 'anna-secret-pass-1', 'boris@hw': 'boris-secret-pass-1' } as const;

/**
 * The real services behind the student pages (enrollment, courses, homework, lessons, knowledge)
 * and the edge on a port known in advance, so homework's lesson_url points at this edge; one
 * Chromium; MCP agents for anna (student) and the course's curator.
 */
export async function startWebStack(name: string) {
  const env: TestEnv = await createTestEnv(name);
  // The edge first, on a port it holds before homework is told its URL (lesson_url links there);
  // a port taken between choosing it and listening is chosen again.
  const edge = await onFreePort((port) =>
    startEdge(env, { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, REQUEST_TIMEOUT_MS: '5000' }),
  );
  const url = edge.url;
  const stack = await startHomeworkStack(env, { PUBLIC_URL: url, PROGRESS_TIMEOUT_MS: '1000' });
  const lessons = await startLessons(env, { CONTEXT_TIMEOUT_MS: '1500' });
  const knowledge = await startKnowledge(env);
  const a = stack.enrollment.admin;
  for (const [user, password] of Object.entries(PASSWORDS)) await a.setPassword(user, password);
  const anna: AgentClient = await connectAgent('v2', `${url}/mcp`, (await a.issueToken('anna@hw')).token);
  const curator: AgentClient = await connectAgent('v2', `${url}/authoring`, (await a.issueToken('curator@hw')).token);
  const browser: Browser = await launchChromium();
  return {
    env,
    url,
    stack,
    edge,
    anna,
    curator,
    browser,
    /** A new browser context (own cookies) at desktop or phone width. */
    async context(phone = false): Promise<BrowserContext> {
      return browser.newContext(
        phone ? { viewport: { width: 390, height: 844 }, isMobile: true } : { viewport: { width: 1280, height: 900 } },
      );
    },
    async close() {
      await browser.close();
      await anna.close();
      await curator.close();
      await edge.close();
      await knowledge.close();
      await lessons.close();
      await stack.close();
      await env.cleanup();
    },
  };
}

/** Signs in on /login with a login and password, from `path` (the sign-in page sends back there). */
export async function signIn(page: Page, base: string, login: keyof typeof PASSWORDS, path = '/'): Promise<void> {
  await page.goto(`${base}${path}`);
  await page.waitForSelector('#login');
  await page.fill('#login', login);
  await page.fill('#password', PASSWORDS[login]);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('#submit')]);
}
