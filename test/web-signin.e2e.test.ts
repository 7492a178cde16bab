import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { freePort } from './support/oauth.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

// The web sign-in against hostile input (issue 30): where a sign-in sends the browser back, and
// what a signed-in user's browser does with it, in Chromium against enrollment and the real edge.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let browser: Browser;
/** Another origin (same address, another port): where an open redirect would land. */
let elsewhere: { server: Server; origin: string; hits: string[] };
const PASSWORD = 'пароль-для-входа-30';

beforeAll(async () => {
  env = await createTestEnv('web-signin');
  enrollment = await startEnrollment(env);
  const port = await freePort();
  edge = await startEdge(env, {
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOGIN_ATTEMPTS_PER_MINUTE: '5',
    LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '20',
    LOGIN_SLOWDOWN_MS: '1500',
  });
  for (const login of ['tanya@web', 'oleg@web', 'owner@web']) {
    await enrollment.admin.upsertUser(login, `Ученик ${login}`, ['Student']);
    await enrollment.admin.setPassword(login, PASSWORD);
  }
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(String(req.url));
    res.end('elsewhere');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  elsewhere = { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  elsewhere?.server.close();
  await edge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

/** Signs in on /login?next=… in the page; resolves once the browser has followed the answer. */
async function signIn(page: Page, login: string, next: string) {
  await page.goto(`${edge.url}/login?next=${next}`);
  await page.fill('#login', login);
  await page.fill('#password', PASSWORD);
  await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#submit')]);
}

describe('the way back after sign-in stays on the site', () => {
  it('a TAB in next (/%09/host) lands on the edge, not on the other host, signing in or signed in', async () => {
    const hostPart = elsewhere.origin.slice('http://'.length);
    const trick = `/%09/${hostPart}/stolen`;
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await signIn(page, 'tanya@web', '/');
      // Signed in, the reviewer's address: /login sends straight on, to the edge's start page.
      await page.goto(`${edge.url}/login?next=${trick}`);
      await page.waitForLoadState('domcontentloaded');
      expect(new URL(page.url()).origin).toBe(edge.url);
      expect(elsewhere.hits).toEqual([]);
      // Signing in with the trick as the way back (the form's post answers with the way back).
      await context.clearCookies();
      await signIn(page, 'tanya@web', trick);
      expect(new URL(page.url()).origin).toBe(edge.url);
      // The other tricks of the same kind: CR, LF, backslash, encoded slash, dot segments.
      for (const next of [
        `/%0d/${hostPart}/x`,
        `/%0a/${hostPart}/x`,
        `/%5c${hostPart}/x`,
        `/%5c%5c${hostPart}/x`,
        `/.//${hostPart}/x`,
        `//${hostPart}/x`,
        `${encodeURIComponent(elsewhere.origin)}/x`,
      ]) {
        await page.goto(`${edge.url}/login?next=${next}`);
        await page.waitForLoadState('domcontentloaded');
        expect(new URL(page.url()).origin, next).toBe(edge.url);
      }
      expect(elsewhere.hits).toEqual([]);
      // A page of the site is kept, query and all.
      await page.goto(`${edge.url}/login?next=${encodeURIComponent('/profile?tab=1')}`);
      await page.waitForURL((u) => u.pathname === '/profile');
      expect(new URL(page.url()).search).toBe('?tab=1');
    } finally {
      await context.close();
    }
  }, 60_000);
});

/** The sign-in form's CSRF token and cookie, as a browser gets them from GET /login. */
async function loginForm(extra: Record<string, string> = {}) {
  const res = await fetch(`${edge.url}/login`, { headers: extra });
  const csrf = /name="csrf" value="([^"]+)"/.exec(await res.text())?.[1] ?? '';
  return { csrf, cookie: `studium_login=${csrf}` };
}

/** POSTs the sign-in form as a browser would (no redirects followed). */
async function postLogin(login: string, password: string, extra: Record<string, string> = {}) {
  const { csrf, cookie } = await loginForm(extra);
  return fetch(`${edge.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...extra },
    body: new URLSearchParams({ login, password, csrf, next: '/' }).toString(),
  });
}

describe('what a page answer carries', () => {
  it('a successful sign-in sets the session cookie once (and clears the form’s cookie once)', async () => {
    const res = await postLogin('oleg@web', PASSWORD);
    expect(res.status).toBe(303);
    const cookies = res.headers.getSetCookie();
    expect(cookies.filter((c) => c.startsWith('studium_session=')).length).toBe(1);
    expect(cookies.filter((c) => c.startsWith('studium_login=')).length).toBe(1);
    expect(cookies.length).toBe(2);
    // A form answer sets its own cookie once too.
    const form = await fetch(`${edge.url}/login`);
    expect(form.headers.getSetCookie().length).toBe(1);
  });

  it('every page (sign-in, OAuth, the apps, errors) and every asset sends nosniff and Referrer-Policy: same-origin', async () => {
    const signedIn = await postLogin('oleg@web', PASSWORD);
    const session = String(signedIn.headers.getSetCookie()[0]).split(';')[0] as string;
    const wrong = await postLogin('oleg@web', 'неверный');
    expect(wrong.status).toBe(401);
    const answers: Array<[string, Response]> = [['POST /login (wrong password)', wrong]];
    answers.push(['POST /login (signed in)', signedIn]);
    for (const [path, cookie] of [
      ['/login', ''],
      ['/login?out=1', ''],
      ['/', session],
      ['/profile', session],
      ['/cabinet', session],
      ['/tutor', session],
      ['/chat', ''],
      ['/profile', ''],
      ['/assets/web/base.css', ''],
      ['/assets/student/app.js', ''],
      ['/assets/student/app.css', ''],
      ['/chat/assets/chat.js', ''],
      ['/signout', ''],
      ['/signin/no-such-interaction', ''],
      ['/oauth/auth?client_id=nobody&response_type=code', ''],
      ['/no-such-page', ''],
    ] as const) {
      const res = await fetch(`${edge.url}${path}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
      answers.push([`GET ${path}${cookie ? ' (signed in)' : ''} → ${res.status}`, res]);
    }
    const html = answers.filter(([, r]) => r.headers.get('content-type')?.startsWith('text/html'));
    // Sign-in, sign-in error, app shells, the cabinet's 403, the tutor, the chat, the OAuth pages.
    expect(html.length).toBeGreaterThanOrEqual(10);
    for (const [what, res] of answers) {
      expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), what).toBe('same-origin');
    }
  }, 60_000);
});

/** A sign-in form POSTed from another client address (127.0.0.x: the edge sees it as request.ip). */
async function postLoginFrom(address: string, login: string, password: string) {
  const { csrf, cookie } = await loginForm();
  const body = new URLSearchParams({ login, password, csrf, next: '/' }).toString();
  const u = new URL(edge.url);
  const started = performance.now();
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: '/login',
        method: 'POST',
        localAddress: address,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'content-length': body.length },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  return { status, ms: performance.now() - started };
}

describe('sign-in throttling cannot lock the owner out', () => {
  it('guesses from one address lock that address out of the login, while the owner signs in from theirs (slowed, not refused)', async () => {
    // The attacker knows the login: five wrong passwords from 127.0.0.2, then even the right one is 429 there.
    const guesses = [];
    for (let i = 0; i < 7; i++) guesses.push((await postLoginFrom('127.0.0.2', 'owner@web', `guess-${i}`)).status);
    expect(guesses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect((await postLoginFrom('127.0.0.2', 'owner@web', PASSWORD)).status).toBe(429);
    // Parallel guesses from another address cannot pass the pair's limit before any of them failed.
    const burst = await Promise.all(
      Array.from({ length: 8 }, (_, i) => postLoginFrom('127.0.0.3', 'owner@web', `burst-${i}`)),
    );
    expect(burst.filter((b) => b.status === 401).length).toBe(5);
    expect(burst.filter((b) => b.status === 429).length).toBe(3);
    // The owner, at an address with no failures (Chromium, 127.0.0.1): the right password works,
    // answered after the login's slowdown, since the login is under attack.
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${edge.url}/login?next=/profile`);
      await page.fill('#login', 'owner@web');
      await page.fill('#password', PASSWORD);
      const started = performance.now();
      await Promise.all([page.waitForURL((u) => u.pathname === '/profile'), page.click('#submit')]);
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(1400);
      expect(took).toBeLessThan(6000);
      expect((await context.cookies()).some((c) => c.name === 'studium_session')).toBe(true);
    } finally {
      await context.close();
    }
    // A fourth address without failures, by form: signed in too (303), also slowed.
    const clean = await postLoginFrom('127.0.0.4', 'owner@web', PASSWORD);
    expect(clean.status).toBe(303);
    expect(clean.ms).toBeGreaterThanOrEqual(1400);
    // Every failed guess is in the audit log with its address.
    await eventually(async () => {
      const rows = await edge.database.pool.query(
        `select detail->>'ip' as ip, count(*)::int as n from edge.audit_log
         where kind = 'web_login_failed' and user_id = 'owner@web' group by 1 order by 1`,
      );
      expect(rows.rows).toEqual([
        { ip: '127.0.0.2', n: 5 },
        { ip: '127.0.0.3', n: 5 },
      ]);
    });
  }, 60_000);

  it('one address trying many logins is refused past its own limit, whatever the logins', async () => {
    const statuses = [];
    for (let i = 0; i < 22; i++) statuses.push((await postLoginFrom('127.0.0.5', `user${i}@web`, 'x')).status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429]);
    // Another address is not affected, and a login that was only guessed by it is not slowed.
    const other = await postLoginFrom('127.0.0.6', 'tanya@web', PASSWORD);
    expect(other.status).toBe(303);
    expect(other.ms).toBeLessThan(1400);
  }, 60_000);
});
