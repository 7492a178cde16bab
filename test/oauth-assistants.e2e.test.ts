import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCONNECT_WORDS } from '../services/edge/src/oauth/pages.ts';
import { freePort, launchChromium, pkce, signInWithBrowser, startCallback } from './support/oauth.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

// Sign-out and the assistants a student connected (issue 30 point 4): signing out ends the
// browser's sign-in and says that it leaves the assistants connected; the profile's
// «Подключённые ассистенты» lists them (the CLI's grant list) and ends one (the CLI's grant
// revoke), at once, for the signed-in user only.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let browser: Browser;
let callback: { url: string; server: Server };
const PASSWORD = 'пароль-ассистентов-30';

beforeAll(async () => {
  env = await createTestEnv('oauth-assistants');
  enrollment = await startEnrollment(env);
  const port = await freePort();
  edge = await startEdge(env, { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  for (const [login, name] of [
    ['maria@as', 'Мария Ученица'],
    ['boris@as', 'Борис Ученик'],
  ]) {
    await enrollment.admin.upsertUser(login, name, ['Student']);
    await enrollment.admin.setPassword(login, PASSWORD);
  }
  callback = await startCallback();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  callback?.server.close();
  await edge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

async function tokenRequest(params: Record<string, string>) {
  const res = await fetch(`${edge.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/**
 * Registers a client named `name` and runs its code flow as `login` in Chromium (in `page`, when
 * given: that browser then holds the authorization server's sign-in); returns its tokens.
 */
async function connect(login: string, name: string, scope = 'read write', page?: Page) {
  const reg = await fetch(`${edge.url}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [callback.url],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  const clientId = ((await reg.json()) as { client_id: string }).client_id;
  const { verifier, challenge } = pkce();
  const url = new URL(`${edge.url}/oauth/auth`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: callback.url,
    scope,
    resource: `${edge.url}/mcp`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  const done = page
    ? await flowIn(page, url.href, login)
    : await signInWithBrowser(browser, url.href, callback.url, login, PASSWORD);
  const t = await tokenRequest({
    grant_type: 'authorization_code',
    code: String(done.url.searchParams.get('code')),
    redirect_uri: callback.url,
    client_id: clientId,
    code_verifier: verifier,
    resource: `${edge.url}/mcp`,
  });
  expect(t.status, JSON.stringify(t.body)).toBe(200);
  return { clientId, access: t.body.access_token as string, refresh: t.body.refresh_token as string, done };
}

/** The code flow in a page of the test's own: sign in if asked, allow, until the callback. */
async function flowIn(page: Page, authorizationUrl: string, login: string) {
  const pages: string[] = [];
  await page.goto(authorizationUrl, { waitUntil: 'domcontentloaded' });
  if (await page.$('#password')) {
    await page.fill('#login', login);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#submit')]);
  }
  pages.push(await page.content());
  await Promise.all([page.waitForURL((u) => u.href.startsWith(callback.url)), page.click('#allow')]);
  return { url: new URL(page.url()), pages };
}

async function whoami(token: string): Promise<number> {
  const res = await fetch(`${edge.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
  });
  return res.status;
}

/** A browser context signed in on the web pages as `login`. */
async function webSignIn(login: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${edge.url}/login?next=/profile/assistants`);
  await page.fill('#login', login);
  await page.fill('#password', PASSWORD);
  await Promise.all([page.waitForURL((u) => u.pathname === '/profile/assistants'), page.click('#submit')]);
  return { context, page };
}

/** The admin CLI as an operator runs it (a separate process). */
function cli(args: string[]): Promise<string> {
  const root = resolve(import.meta.dirname, '..');
  return new Promise((done, fail) => {
    const child = spawn(resolve(root, 'node_modules/.bin/tsx'), [resolve(root, 'scripts/cli.ts'), ...args], {
      env: { ...process.env, DATABASE_URL: env.databaseUrl, SUBJECT_PREFIX: env.prefix, NATS_URL: env.natsUrl },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('close', (code) => (code === 0 ? done(out) : fail(new Error(`cli ${args.join(' ')}: ${code} ${err}`))));
  });
}

let one: Awaited<ReturnType<typeof connect>>;
let rtl: Awaited<ReturnType<typeof connect>>;

describe('signing out', () => {
  it('says what it does — the assistants stay connected — and does exactly that, on the web and OAuth sign-outs', async () => {
    // Signed in on the web pages, the student connects an assistant in the same browser.
    const { context, page } = await webSignIn('maria@as');
    await page.waitForSelector('#no-assistants');
    one = await connect('maria@as', 'Ассистент Один', 'read write', page);
    // The consent page said so before the user allowed.
    const consent = one.done.pages.find((p) => p.includes('id="allow"')) ?? '';
    expect(consent).toContain('Выход из Studium подключённых приложений не отключает');
    expect(consent).not.toContain('пока вы не выйдете');
    expect(await whoami(one.access)).toBe(200);
    // The web sign-out: its notice says the same.
    await page.goto(`${edge.url}/profile/assistants`);
    await page.waitForSelector('#assistants .assistant');
    await Promise.all([page.waitForURL((u) => u.pathname === '/login'), page.click('#signout')]);
    expect(await page.textContent('.notice')).toContain(DISCONNECT_WORDS);
    // The authorization server's sign-out too (the browser signed in there when allowing).
    await page.goto(`${edge.url}/signout`);
    expect(await page.textContent('h1')).toBe('Выйти из Studium?');
    expect(await page.textContent('#disconnect')).toBe(DISCONNECT_WORDS);
    await Promise.all([page.waitForNavigation(), page.click('#logout')]);
    expect(await page.textContent('h1')).toBe('Вы вышли из Studium');
    expect(await page.textContent('#disconnect')).toBe(DISCONNECT_WORDS);
    await context.close();
    // After both: the access token answers and the refresh token refreshes, as promised.
    expect(await whoami(one.access)).toBe(200);
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: one.refresh,
      client_id: one.clientId,
    });
    expect(refreshed.status).toBe(200);
    one = { ...one, access: refreshed.body.access_token as string, refresh: refreshed.body.refresh_token as string };
  }, 90_000);
});

describe('«Подключённые ассистенты» in the student profile', () => {
  it('lists each connected client with its scopes and last use, and ends one at once: its tokens stop working, the other stays', async () => {
    // A client that calls itself with a right-to-left override, to reverse how its name reads.
    rtl = await connect('maria@as', '\u202Eтнетсисса йыньлетичу', 'read');
    expect(await whoami(one.access)).toBe(200);
    const { context, page } = await webSignIn('maria@as');
    try {
      await page.waitForSelector('#assistants .assistant');
      const items = page.locator('#assistants > li.assistant');
      expect(await items.count()).toBe(2);
      const text = await page.textContent('#assistants');
      expect(text).toContain('Ассистент Один');
      expect(text).toContain('тнетсисса йыньлетичу');
      expect(text).not.toContain('\u202E');
      expect(text).toContain('(название указало само приложение)');
      const first = page.locator('#assistants > li.assistant', { hasText: 'Ассистент Один' });
      expect(await first.locator('.scopes').textContent()).toContain('учёба: видеть, действовать от вашего имени');
      expect(await first.locator('.last-used').textContent()).toContain('Последнее использование:');
      const second = page.locator('#assistants > li.assistant', { hasText: 'тнетсисса' });
      expect(await second.locator('.scopes').textContent()).toBe('учёба: видеть');
      expect(await second.locator('.last-used').textContent()).toContain('Ещё не использовался');
      // The profile links here.
      await page.goto(`${edge.url}/profile`);
      await page.waitForSelector('#to-assistants');
      await Promise.all([page.waitForURL((u) => u.pathname === '/profile/assistants'), page.click('#to-assistants')]);
      await page.waitForSelector('#assistants .assistant');
      // Ending the first one.
      await page.locator('#assistants > li.assistant', { hasText: 'Ассистент Один' }).locator('button.revoke').click();
      await eventually(async () => expect(await page.locator('#assistants > li.assistant').count()).toBe(1));
      await eventually(async () => expect(await whoami(one.access)).toBe(401), 5000);
      const again = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: one.refresh,
        client_id: one.clientId,
      });
      expect(again.body.error).toBe('invalid_grant');
      expect(await whoami(rtl.access)).toBe(200);
      const audit = await edge.database.pool.query(
        `select detail->>'by' as by, detail->>'client' as client from edge.audit_log
         where kind = 'oauth_revocation' and user_id = 'maria@as'`,
      );
      expect(audit.rows).toEqual([{ by: 'user', client: one.clientId }]);
    } finally {
      await context.close();
    }
    // The CLI's grant list shows what the page shows: the one left, with its use.
    const listed = await cli(['grant', 'list', 'maria@as']);
    expect(listed).toContain(rtl.clientId);
    expect(listed).not.toContain(one.clientId);
    expect(listed).toContain('last_used_at');
  }, 90_000);

  it('refuses what is not the signed-in user’s own, or not a well-formed request: CSRF, another’s grant, bad and big bodies, no session', async () => {
    const boris = await connect('boris@as', 'Ассистент Бориса');
    const { context, page } = await webSignIn('maria@as');
    try {
      await page.waitForSelector('#assistants .assistant');
      const csrf = String(await page.getAttribute('meta[name="csrf-token"]', 'content'));
      const post = (path: string, data: unknown, headers: Record<string, string> = { 'x-csrf-token': csrf }) =>
        page.request.post(`${edge.url}/api/student/assistants/${path}`, { data: data as never, headers });
      const borisGrant = (
        await edge.database.pool.query(
          `select id from edge.oauth_store where kind = 'Grant' and account_id = 'boris@as'`,
        )
      ).rows[0].id as string;
      // No CSRF token: 403, nothing ended.
      expect((await post('revoke', { grant: borisGrant }, {})).status()).toBe(403);
      expect((await post('revoke-all', {}, { 'x-csrf-token': 'x'.repeat(43) })).status()).toBe(403);
      // Another user's grant, by its real id: as if it did not exist.
      const other = await post('revoke', { grant: borisGrant });
      expect(other.status()).toBe(404);
      expect((await other.json()).ok).toBe(false);
      expect(await whoami(boris.access)).toBe(200);
      // Malformed: no grant, a number, a long string, a body past 1 KB, not JSON.
      for (const data of [{}, { grant: 42 }, { grant: 'g'.repeat(5000).slice(0, 900) }, { grant: '../x' }]) {
        expect((await post('revoke', data)).status(), JSON.stringify(data).slice(0, 40)).toBe(400);
      }
      expect((await post('revoke', { grant: 'g'.repeat(2000) })).status()).toBe(413);
      const notJson = await page.request.post(`${edge.url}/api/student/assistants/revoke`, {
        data: Buffer.from('{"grant'),
        headers: { 'x-csrf-token': csrf, 'content-type': 'application/json' },
      });
      expect(notJson.status()).toBe(400);
      // Without a session: 401 for the list and for revoking.
      const anon = await browser.newContext();
      expect((await anon.request.get(`${edge.url}/api/student/assistants`)).status()).toBe(401);
      expect((await anon.request.post(`${edge.url}/api/student/assistants/revoke-all`, { data: {} })).status()).toBe(
        401,
      );
      await anon.close();
      // Maria's own: «Отключить всех» is revoke-all (the CLI's grant revoke <login>).
      expect((await post('revoke-all', {})).status()).toBe(200);
      await eventually(async () => expect(await whoami(rtl.access)).toBe(401), 5000);
      expect(await whoami(boris.access)).toBe(200);
      await page.reload();
      await page.waitForSelector('#no-assistants');
    } finally {
      await context.close();
    }
  }, 90_000);
});
