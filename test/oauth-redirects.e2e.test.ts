import type { Server } from 'node:http';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { createTestEnv, type TestEnv } from '@studium/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedId } from '../services/edge/src/oauth/adapter.ts';
import { data, type ToolResult } from './support/clients.ts';
import { launchChromium, MemoryProvider, onFreePort, pkce, signInWithBrowser, startCallback } from './support/oauth.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let browser: Browser;
let callback: { url: string; server: Server };
let port: number;
const PASSWORD = 'верный-пароль-42';
const HOSTED = 'https://assistant.example/cb';

beforeAll(async () => {
  env = await createTestEnv('oauth_redirects');
  enrollment = await startEnrollment(env);
  edge = await onFreePort((p) =>
    startEdge(env, {
      PORT: String(p),
      PUBLIC_URL: `http://127.0.0.1:${p}`,
      OAUTH_REDIRECTS: `loopback,private-use,${HOSTED}`,
      OAUTH_CORS_ORIGINS: 'https://assistant.example',
    }),
  );
  port = Number(new URL(edge.url).port);
  await enrollment.admin.upsertUser('sasha@test', 'Саша Ученик', ['Student']);
  await enrollment.admin.setPassword('sasha@test', PASSWORD);
  await enrollment.admin.upsertUser('kira@test', 'Кира Автор', ['Student', 'Course Creator']);
  await enrollment.admin.setPassword('kira@test', PASSWORD);
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

function register(redirectUris: string[], name = 'Ассистент', extra: Record<string, unknown> = {}) {
  return fetch(`${edge.url}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: redirectUris,
      token_endpoint_auth_method: 'none',
      ...extra,
    }),
  });
}

async function clientFor(redirectUris: string[], name?: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await register(redirectUris, name, extra);
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

function authUrl(clientId: string, redirectUri: string, extra: Record<string, string | undefined> = {}) {
  const { challenge } = pkce();
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'read write',
    resource: `${edge.url}/mcp`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st',
    ...extra,
  };
  const url = new URL(`${edge.url}/oauth/auth`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url;
}

async function tokenRequest(params: Record<string, string>) {
  const res = await fetch(`${edge.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/**
 * The code flow played in Chromium; `extra` overrides authorization parameters (undefined drops
 * one); `method` POST sends the authorization request as a form; `client` adds registration metadata.
 */
async function authorize(
  login: string,
  extra: Record<string, string | undefined> = {},
  method?: 'GET' | 'POST',
  client: Record<string, unknown> = {},
) {
  const clientId = await clientFor([callback.url], undefined, client);
  const { verifier, challenge } = pkce();
  const url = authUrl(clientId, callback.url, { code_challenge: challenge, ...extra });
  const done = await signInWithBrowser(browser, url.href, callback.url, login, PASSWORD, method);
  const code = done.url.searchParams.get('code');
  expect(code, done.url.href).toBeTruthy();
  const t = await tokenRequest({
    grant_type: 'authorization_code',
    code: code as string,
    redirect_uri: callback.url,
    client_id: clientId,
    code_verifier: verifier,
    ...(extra.resource !== undefined ? { resource: extra.resource } : { resource: `${edge.url}/mcp` }),
  });
  expect(t.status, JSON.stringify(t.body)).toBe(200);
  return { clientId, code: code as string, pages: done.pages, tokens: t.body };
}

function whoami(token: string, path = '/mcp') {
  return fetch(`${edge.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
  });
}

/** Each trick of issue 17: userinfo, host suffix, `@`, backslash, encoded characters, another port, fragment. */
const TRICKS = [
  'http://127.0.0.1:1@evil.example/cb',
  'http://localhost@evil.example/cb',
  'https://assistant.example@evil.example/cb',
  'https://evil.example/@assistant.example/cb',
  'https://assistant.example.evil.example/cb',
  'http://127.0.0.1.evil.example/cb',
  'http://localhost.evil.example/cb',
  'http://127.0.0.1\\@evil.example/cb',
  'https://assistant.example\\.evil.example/cb',
  'https://assistant%2eexample/cb',
  'http://127.0.0.%31/cb',
  'https://assistant.example:8443/cb',
  'http://assistant.example/cb',
  'https://assistant.example/cb#frag',
  'https://assistant.example/cb/../cb',
  'http://127.1/cb',
  'javascript://assistant.example/cb',
];

describe('redirect URI tricks', () => {
  it('are refused at dynamic client registration, and nothing is stored', async () => {
    const before = await edge.database.pool.query(
      `select count(*)::int as n from edge.oauth_store where kind = 'Client'`,
    );
    for (const uri of TRICKS) {
      const res = await register([uri]);
      expect(res.status, uri).toBe(400);
      expect(((await res.json()) as { error: string }).error, uri).toMatch(
        /invalid_redirect_uri|invalid_client_metadata/,
      );
    }
    const after = await edge.database.pool.query(
      `select count(*)::int as n from edge.oauth_store where kind = 'Client'`,
    );
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('are refused at authorization: no redirect leaves the server, the error page is shown', async () => {
    const clientId = await clientFor([callback.url, HOSTED]);
    for (const uri of [...TRICKS, `${callback.url}x`, callback.url.replace('127.0.0.1', 'localhost')]) {
      const res = await fetch(authUrl(clientId, uri), { redirect: 'manual' });
      expect(res.status, uri).toBe(400);
      expect(res.headers.get('location'), uri).toBeNull();
      expect(await res.text(), uri).toContain('redirect_uri');
    }
    // The registered ones go on to the sign-in page; a loopback one on any port (RFC 8252).
    const other = new URL(callback.url);
    other.port = String(Number(other.port) === 65535 ? 65534 : Number(other.port) + 1);
    for (const uri of [callback.url, HOSTED, other.href]) {
      const res = await fetch(authUrl(clientId, uri), { redirect: 'manual' });
      expect(res.status, uri).toBe(303);
      expect(res.headers.get('location'), uri).toContain(`${edge.url}/signin/`);
    }
  });

  it('are refused at authorization for a client stored before the rules (old registrations are checked again)', async () => {
    const trick = 'http://127.0.0.1:1@evil.example/cb';
    await edge.database.pool.query(
      `insert into edge.oauth_store (kind, id, payload) values ('Client', 'old-client', $1)`,
      [
        JSON.stringify({
          client_id: 'old-client',
          client_name: 'Старый клиент',
          redirect_uris: [trick],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code'],
          response_types: ['code'],
        }),
      ],
    );
    const res = await fetch(authUrl('old-client', trick), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('accepts a native app private-use scheme and loopback, and refuses a scheme without reverse DNS', async () => {
    const native = { application_type: 'native' };
    expect((await register(['com.example.studium:/oauth2redirect'], 'Приложение', native)).status).toBe(201);
    expect((await register(['http://[::1]:7000/cb', 'http://localhost:7001/cb'])).status).toBe(201);
    expect((await register(['studium:/cb'], 'Приложение', native)).status).toBe(400);
    expect((await register(['com.example.studium://evil.example@x/cb'], 'Приложение', native)).status).toBe(400);
  });
});

describe('the consent page', () => {
  it('shows the redirect host beside the self-declared client name, and the scopes in the words of /mcp', async () => {
    const clientId = await clientFor([callback.url], 'Claude (официальный)');
    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(authUrl(clientId, callback.url).href, { waitUntil: 'domcontentloaded' });
      await page.type('#login', 'sasha@test');
      await page.type('#password', PASSWORD);
      await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#submit')]);
      expect(await page.$('#allow')).toBeTruthy();
      expect(await page.textContent('#redirect-host')).toBe(new URL(callback.url).host);
      const text = (await page.textContent('body')) ?? '';
      expect(text).toContain('Claude (официальный)');
      expect(text).toContain('название указало само приложение');
      expect(text).toContain('проходить уроки и квизы');
      // Fits a phone: nothing wider than the viewport.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('words /kb and /authoring scopes for their endpoints', async () => {
    const kb = await authorize('kira@test', { resource: `${edge.url}/kb` });
    const kbPage = kb.pages.find((p) => p.includes('id="allow"')) ?? '';
    expect(kbPage).toContain('базу знаний');
    expect(kbPage).not.toContain('проходить уроки');
    const authoring = await authorize('kira@test', { resource: `${edge.url}/authoring` });
    const authPage = authoring.pages.find((p) => p.includes('id="allow"')) ?? '';
    expect(authPage).toContain('как автор');
    expect((await whoami(authoring.tokens.access_token as string, '/authoring')).status).toBe(200);
  }, 60_000);

  it('words what each resource named gets when the request names several (/mcp and /authoring)', async () => {
    const clientId = await clientFor([callback.url]);
    const url = authUrl(clientId, callback.url);
    url.searchParams.append('resource', `${edge.url}/authoring`);
    const done = await signInWithBrowser(browser, url.href, callback.url, 'kira@test', PASSWORD);
    expect(done.url.searchParams.get('code')).toBeTruthy();
    const consent = done.pages.find((p) => p.includes('id="allow"')) ?? '';
    // /mcp's words and /authoring's, each under its resource.
    const lists = [...consent.matchAll(/<ul class="scopes" data-resource="([^"]+)">(.*?)<\/ul>/gs)];
    expect(lists.map((m) => m[1])).toEqual([`${edge.url}/mcp`, `${edge.url}/authoring`]);
    expect(lists[0]?.[2]).toContain('проходить уроки и квизы');
    expect(lists[0]?.[2]).not.toContain('как автор');
    expect(lists[1]?.[2]).toContain('видеть ваши курсы как автора');
    expect(lists[1]?.[2]).toContain('проверять домашние работы');
  }, 60_000);

  it('does not offer /authoring to a student, and a hand-made allow is refused', async () => {
    const clientId = await clientFor([callback.url]);
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(authUrl(clientId, callback.url, { resource: `${edge.url}/authoring` }).href, {
        waitUntil: 'domcontentloaded',
      });
      await page.type('#login', 'sasha@test');
      await page.type('#password', PASSWORD);
      const [res] = await Promise.all([
        page.waitForNavigation({ waitUntil: 'domcontentloaded' }),
        page.click('#submit'),
      ]);
      // The login's redirect lands on the consent step, which refuses.
      expect(res?.status()).toBe(403);
      expect(await page.$('#allow')).toBeNull();
      expect((await page.textContent('body')) ?? '').toContain('нет роли автора');
      const uid = new URL(page.url()).pathname.split('/')[2] as string;
      const forced = await context.request.post(`${edge.url}/signin/${uid}/consent`, { maxRedirects: 0 });
      expect(forced.status()).toBe(403);
      // Going back tells the client access was denied.
      await Promise.all([page.waitForURL((u) => u.href.startsWith(callback.url)), page.click('#deny')]);
      expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');
    } finally {
      await context.close();
    }
    const grants = await edge.database.pool.query(
      `select count(*)::int as n from edge.oauth_store where kind = 'Grant' and account_id = 'sasha@test' and payload::text like '%/authoring%'`,
    );
    expect(grants.rows[0].n).toBe(0);
  }, 60_000);
  it('does not let a student into /authoring by naming it beside /mcp', async () => {
    const clientId = await clientFor([callback.url]);
    const url = authUrl(clientId, callback.url);
    url.searchParams.append('resource', `${edge.url}/authoring`);
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(url.href, { waitUntil: 'domcontentloaded' });
      await page.type('#login', 'sasha@test');
      await page.type('#password', PASSWORD);
      const [res] = await Promise.all([
        page.waitForNavigation({ waitUntil: 'domcontentloaded' }),
        page.click('#submit'),
      ]);
      expect(res?.status()).toBe(403);
      expect(await page.$('#allow')).toBeNull();
      const uid = new URL(page.url()).pathname.split('/')[2] as string;
      const forced = await context.request.post(`${edge.url}/signin/${uid}/consent`, { maxRedirects: 0 });
      expect(forced.status()).toBe(403);
    } finally {
      await context.close();
    }
    const grants = await edge.database.pool.query(
      `select count(*)::int as n from edge.oauth_store where kind = 'Grant' and account_id = 'sasha@test' and payload::text like '%/authoring%'`,
    );
    expect(grants.rows[0].n).toBe(0);
  }, 60_000);
});

describe('staying connected on the consent page', () => {
  // Its own user: a login's failures slow it down (10 a minute), and the other tests sign in as sasha.
  beforeAll(async () => {
    await enrollment.admin.upsertUser('lev@test', 'Лев Ученик', ['Student']);
    await enrollment.admin.setPassword('lev@test', PASSWORD);
  });
  /** The consent page's "stay connected" line, or null when it has none. */
  const stayLine = (pages: string[]) => {
    const consent = pages.find((p) => p.includes('id="allow"')) ?? '';
    expect(consent).not.toBe('');
    return consent.match(/<p id="offline">(.*?)<\/p>/s)?.[1] ?? null;
  };

  it('says so exactly when the client will get a refresh token, without asking again', async () => {
    // A client allowed refresh_token (the default) gets one without offline_access: the page says
    // it stays connected, within the grant's lifetime, and what ends it (not signing out).
    const plain = await authorize('lev@test');
    expect(plain.tokens.refresh_token).toBeTruthy();
    const line = stayLine(plain.pages);
    expect(line).toContain('обновлять доступ, не спрашивая вас снова');
    expect(line).toContain('не дольше 30 дней');
    expect(line).not.toContain('выйдете');
    const consent = plain.pages.find((p) => p.includes('id="allow"')) ?? '';
    expect(consent).toContain('Выход из Studium подключённых приложений не отключает');
    expect(consent).toContain('«Подключённые ассистенты»');
    // offline_access (kept by oidc-provider only with prompt=consent) changes nothing: one rule.
    const offline = await authorize('lev@test', { scope: 'read write offline_access', prompt: 'consent' });
    expect(offline.tokens.refresh_token).toBeTruthy();
    expect(stayLine(offline.pages)).toBe(line);
    // A client that registered without refresh_token gets none, and the page promises nothing,
    // even when it asks for offline_access.
    const noRefresh = { grant_types: ['authorization_code'] };
    const once = await authorize('lev@test', {}, 'GET', noRefresh);
    expect(once.tokens.refresh_token).toBeUndefined();
    expect(stayLine(once.pages)).toBeNull();
    const asked = await authorize(
      'lev@test',
      { scope: 'read write offline_access', prompt: 'consent' },
      'GET',
      noRefresh,
    );
    expect(asked.tokens.refresh_token).toBeUndefined();
    expect(stayLine(asked.pages)).toBeNull();
  }, 90_000);

  it('keeps its word on signing out: the assistants stay connected, with or without offline_access', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    /** One code flow in this browser (signed in once), exchanged for tokens. */
    const flow = async (extra: Record<string, string>) => {
      const clientId = await clientFor([callback.url]);
      const { verifier, challenge } = pkce();
      await page.goto(authUrl(clientId, callback.url, { code_challenge: challenge, ...extra }).href, {
        waitUntil: 'domcontentloaded',
      });
      if (await page.$('#password')) {
        await page.type('#login', 'lev@test');
        await page.type('#password', PASSWORD);
        await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#submit')]);
      }
      await Promise.all([page.waitForURL((u) => u.href.startsWith(callback.url)), page.click('#allow')]);
      const t = await tokenRequest({
        grant_type: 'authorization_code',
        code: new URL(page.url()).searchParams.get('code') as string,
        redirect_uri: callback.url,
        client_id: clientId,
        code_verifier: verifier,
        resource: `${edge.url}/mcp`,
      });
      expect(t.status, JSON.stringify(t.body)).toBe(200);
      return { clientId, refresh: t.body.refresh_token as string };
    };
    try {
      const bound = await flow({});
      const offline = await flow({ scope: 'read write offline_access', prompt: 'consent' });
      await page.goto(`${edge.url}/signout`, { waitUntil: 'domcontentloaded' });
      expect(await page.textContent('#disconnect')).toContain('подключённых приложений не отключает');
      await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#logout')]);
      expect(await page.textContent('#disconnect')).toContain('«Подключённые ассистенты»');
      const refresh = (c: { clientId: string; refresh: string }) =>
        tokenRequest({ grant_type: 'refresh_token', refresh_token: c.refresh, client_id: c.clientId });
      expect((await refresh(bound)).status).toBe(200);
      expect((await refresh(offline)).status).toBe(200);
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe('scopes and metadata', () => {
  it('gives a request without scope the default scope instead of access_denied', async () => {
    const { tokens } = await authorize('sasha@test', { scope: undefined });
    expect(tokens.scope).toBe('read write');
    expect((await whoami(tokens.access_token as string)).status).toBe(200);
  }, 60_000);

  it('serves an authorization request POSTed as a form (RFC 6749) as a GET one: the same default scope', async () => {
    const bare = await authorize('sasha@test', { scope: undefined }, 'POST');
    expect(bare.tokens.scope).toBe('read write');
    expect((await whoami(bare.tokens.access_token as string)).status).toBe(200);
    // A scope it names is kept, as with GET.
    const read = await authorize('sasha@test', { scope: 'read' }, 'POST');
    expect(read.tokens.scope).toBe('read');
    // Only a form body is an authorization request.
    const json = await fetch(`${edge.url}/oauth/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'x' }),
      redirect: 'manual',
    });
    expect(json.status).toBe(400);
    expect(json.headers.get('location')).toBeNull();
  }, 60_000);

  it('does not advertise the implicit grant or any response type but code', async () => {
    const as = (await (await fetch(`${edge.url}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<
      string,
      string[]
    >;
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.grant_types_supported).not.toContain('implicit');
    const clientId = await clientFor([callback.url]);
    const res = await fetch(authUrl(clientId, callback.url, { response_type: 'token' }), { redirect: 'manual' });
    expect(res.headers.get('location') ?? '').not.toContain('access_token');
  });

  it('offers no pushed authorization requests: none advertised, and the old endpoint stores nothing', async () => {
    const as = (await (await fetch(`${edge.url}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<
      string,
      unknown
    >;
    expect(as).not.toHaveProperty('pushed_authorization_request_endpoint');
    expect(as).not.toHaveProperty('require_pushed_authorization_requests');
    const clientId = await clientFor([callback.url]);
    const count = async () =>
      (
        await edge.database.pool.query(
          `select count(*)::int as n from edge.oauth_store where kind = 'PushedAuthorizationRequest'`,
        )
      ).rows[0].n as number;
    const before = await count();
    // A complete pushed request without a scope: before, it was stored and its request_uri then
    // ended in access_denied (the default scope is filled in only for requests the edge sees).
    const pushed = await fetch(`${edge.url}/oauth/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([...authUrl(clientId, callback.url, { scope: undefined }).searchParams]).toString(),
    });
    expect(pushed.status).toBe(404);
    expect(((await pushed.json().catch(() => ({}))) as { request_uri?: string }).request_uri).toBeUndefined();
    expect(await count()).toBe(before);
  });

  it('allows the configured hosted assistant origin (CORS) and no other', async () => {
    const pre = await fetch(`${edge.url}/oauth/reg`, {
      method: 'OPTIONS',
      headers: { origin: 'https://assistant.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://assistant.example');
    const evilPre = await fetch(`${edge.url}/oauth/reg`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(evilPre.headers.get('access-control-allow-origin')).toBeNull();
    const clientId = await clientFor([callback.url]);
    const token = (origin: string) =>
      fetch(`${edge.url}/oauth/token`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId }).toString(),
      });
    const allowed = await token('https://assistant.example');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://assistant.example');
    expect(((await allowed.json()) as { error: string }).error).toBe('invalid_grant');
    const evil = await token('https://evil.example');
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await evil.json()) as { error_description: string }).error_description).toContain('not allowed');
  });
});

describe('credentials at rest', () => {
  it('stores access tokens, refresh tokens and codes only as hashes: a stored value is no Bearer token', async () => {
    const { clientId, code, tokens } = await authorize('sasha@test', { scope: 'read write offline_access' });
    const access = tokens.access_token as string;
    const refresh = tokens.refresh_token as string;
    expect(refresh).toBeTruthy();
    const rows = await edge.database.pool.query(
      `select kind, id, payload::text as payload from edge.oauth_store
       where kind in ('AccessToken', 'RefreshToken', 'AuthorizationCode', 'Session', 'Interaction')`,
    );
    const all = rows.rows.map((r) => `${r.id} ${r.payload}`).join('\n');
    for (const secret of [access, refresh, code]) expect(all).not.toContain(secret);
    const at = rows.rows.find((r) => r.kind === 'AccessToken' && r.id === storedId(access));
    expect(at).toBeTruthy();
    expect(rows.rows.some((r) => r.kind === 'RefreshToken' && r.id === storedId(refresh))).toBe(true);
    expect(rows.rows.some((r) => r.kind === 'AuthorizationCode' && r.id === storedId(code))).toBe(true);
    // What a database reader has, tried as credentials.
    expect((await whoami(at.id)).status).toBe(401);
    const rt = rows.rows.find((r) => r.kind === 'RefreshToken' && r.id === storedId(refresh));
    expect(
      (await tokenRequest({ grant_type: 'refresh_token', refresh_token: rt.id, client_id: clientId })).body.error,
    ).toBe('invalid_grant');
    // The real values still work.
    expect((await whoami(access)).status).toBe(200);
    const rotated = await tokenRequest({ grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId });
    expect(rotated.status).toBe(200);
  }, 60_000);
  it('keeps no sign-in session id at rest: an open consent interaction does not hold the session cookie', async () => {
    const clientId = await clientFor([callback.url]);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(authUrl(clientId, callback.url).href, { waitUntil: 'domcontentloaded' });
      await page.type('#login', 'sasha@test');
      await page.type('#password', PASSWORD);
      await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#submit')]);
      // Signed in, the consent page open: its interaction row names the session.
      expect(await page.$('#allow')).not.toBeNull();
      const session = (await context.cookies()).find((c) => c.name === '_session')?.value;
      expect(session).toBeTruthy();
      const rows = await edge.database.pool.query(`select kind, id, payload::text as payload from edge.oauth_store`);
      expect(rows.rows.some((r) => r.kind === 'Interaction')).toBe(true);
      expect(rows.rows.some((r) => r.kind === 'Session' && r.id === storedId(session as string))).toBe(true);
      const all = rows.rows.map((r) => `${r.id} ${r.payload}`).join('\n');
      expect(all).not.toContain(session);
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe('discovery by either loopback name', () => {
  it('serves resource metadata for the host asked, and the SDK connects by http://localhost as by 127.0.0.1', async () => {
    for (const host of ['localhost', '127.0.0.1']) {
      const prm = (await (await fetch(`http://${host}:${port}/.well-known/oauth-protected-resource/mcp`)).json()) as {
        resource: string;
        authorization_servers: string[];
      };
      expect(prm.resource).toBe(`http://${host}:${port}/mcp`);
      expect(prm.authorization_servers).toEqual([`${edge.url}/oauth`]);
      const as = (await (
        await fetch(`http://${host}:${port}/.well-known/oauth-authorization-server/oauth`)
      ).json()) as {
        issuer: string;
        authorization_endpoint: string;
      };
      expect(as.issuer).toBe(`${edge.url}/oauth`);
      expect(as.authorization_endpoint).toBe(`${edge.url}/oauth/auth`);
    }
    const provider = new MemoryProvider(callback.url);
    const mcp = new URL(`http://localhost:${port}/mcp`);
    const first = new StreamableHTTPClientTransport(mcp, { authProvider: provider as never });
    await expect(new Client({ name: 't', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const auth = provider.authorizationUrl as URL;
    expect(auth.searchParams.get('resource')).toBe(mcp.href);
    const { url } = await signInWithBrowser(browser, auth.href, callback.url, 'sasha@test', PASSWORD);
    expect(url.searchParams.get('code')).toBeTruthy();
    await first.finishAuth(url.searchParams);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider as never }));
    const who = (await client.callTool({ name: 'whoami', arguments: {} })) as ToolResult;
    expect(data(who)).toMatchObject({ user: 'sasha@test' });
    await client.close();
    // The same token at the 127.0.0.1 spelling of the endpoint: one resource, two names.
    expect((await whoami(provider.saved?.access_token as string)).status).toBe(200);
  }, 60_000);
});
