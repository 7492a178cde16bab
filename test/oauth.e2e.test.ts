import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedId } from '../services/edge/src/oauth/adapter.ts';
import { connectAgent, data, type ToolResult } from './support/clients.ts';
import { launchChromium, MemoryProvider, onFreePort, pkce, signInWithBrowser, startCallback } from './support/oauth.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let browser: Browser;
let callback: { url: string; server: Server };
const PASSWORD = 'верный-пароль-42';

beforeAll(async () => {
  env = await createTestEnv('oauth');
  enrollment = await startEnrollment(env);
  edge = await onFreePort((port) =>
    startEdge(env, {
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      OAUTH_REDIRECTS: 'loopback,private-use,https://assistant.example/cb',
      LOGIN_ATTEMPTS_PER_MINUTE: '3',
    }),
  );
  const a = enrollment.admin;
  await a.upsertUser('anna@test', 'Анна Ученица', ['Student']);
  await a.setPassword('anna@test', PASSWORD);
  await a.upsertUser('boris@test', 'Борис Ученик', ['Student']);
  await a.setPassword('boris@test', PASSWORD);
  await a.upsertUser('vera@test', 'Вера Ученица', ['Student']);
  await a.setPassword('vera@test', PASSWORD);
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

let sdkTokens: { access_token: string; refresh_token?: string } | undefined;
let sdkClientId: string | undefined;

describe('the official SDK client connects to /mcp by URL alone', () => {
  it('discovers, registers, signs in through the pages (PKCE S256) and calls whoami as the signed-in user', async () => {
    const provider = new MemoryProvider(callback.url);
    const mcp = new URL(`${edge.url}/mcp`);
    const first = new StreamableHTTPClientTransport(mcp, { authProvider: provider as never });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const auth = provider.authorizationUrl as URL;
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('resource')).toBe(`${edge.url}/mcp`);
    expect(provider.client?.client_id).toBeTruthy();

    const { url, pages } = await signInWithBrowser(browser, auth.href, callback.url, 'anna@test', PASSWORD);
    expect(pages[0]).toContain('Вход в Studium');
    expect(pages.some((p) => p.includes('Разрешить доступ?') && p.includes('Тестовый ассистент'))).toBe(true);
    expect(url.searchParams.get('code')).toBeTruthy();
    await first.finishAuth(url.searchParams);
    expect(provider.saved?.refresh_token).toBeTruthy();

    const connected = new Client({ name: 'oauth-test', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider as never }));
    const who = (await connected.callTool({ name: 'whoami', arguments: {} })) as ToolResult;
    expect(data(who)).toMatchObject({ user: 'anna@test', full_name: 'Анна Ученица' });
    await connected.close();
    sdkTokens = provider.saved;
    sdkClientId = provider.client?.client_id;
  }, 60_000);
});

interface Tokens {
  access_token: string;
  refresh_token?: string;
  scope?: string;
  expires_in?: number;
}

async function registerClient(): Promise<string> {
  const res = await fetch(`${edge.url}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Ручной клиент',
      redirect_uris: [callback.url],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

async function tokenRequest(params: Record<string, string>): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${edge.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** A full authorization code flow with PKCE, the user played by Chromium; returns the client and its tokens. */
async function authorize(login: string, scope = 'read write', resource = `${edge.url}/mcp`) {
  const clientId = await registerClient();
  const { verifier, challenge } = pkce();
  const url = new URL(`${edge.url}/oauth/auth`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: callback.url,
    scope,
    resource,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st',
  }))
    url.searchParams.set(k, v);
  const done = await signInWithBrowser(browser, url.href, callback.url, login, PASSWORD);
  const code = done.url.searchParams.get('code');
  expect(code, done.pages.at(-1)).toBeTruthy();
  const t = await tokenRequest({
    grant_type: 'authorization_code',
    code: code as string,
    redirect_uri: callback.url,
    client_id: clientId,
    code_verifier: verifier,
    resource,
  });
  expect(t.status).toBe(200);
  return { clientId, tokens: t.body as unknown as Tokens };
}

function post(path: string, token: string | null, body: unknown) {
  return fetch(`${edge.url}${path}`, {
    method: 'POST',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify(body),
  });
}

const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

async function whoamiStatus(token: string, path = '/mcp'): Promise<number> {
  return (
    await post(path, token, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } })
  ).status;
}

/** Polls until the edge refuses the token (principal-change announcements are asynchronous). */
async function refusedSoon(token: string): Promise<number> {
  for (let i = 0; i < 40; i++) {
    const status = await whoamiStatus(token);
    if (status !== 200) return status;
    await new Promise((r) => setTimeout(r, 50));
  }
  return 200;
}

describe('keys, clients and tokens are shared by replicas and survive restarts', () => {
  it('a second edge on the same database (a replica, or the first one restarted) accepts the token and refreshes it, and the first accepts what it issued', async () => {
    const token = sdkTokens?.access_token as string;
    const replica = await startEdge(env, { PORT: '0', PUBLIC_URL: edge.url });
    const port = new URL(replica.url).port;
    try {
      const call = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify(listTools),
      });
      expect(call.status).toBe(200);
      const refreshed = await fetch(`http://127.0.0.1:${port}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: sdkTokens?.refresh_token as string,
          client_id: sdkClientId as string,
        }).toString(),
      });
      expect(refreshed.status).toBe(200);
      const body = (await refreshed.json()) as { access_token: string };
      // The first edge (its keys read from the same table) accepts what the replica issued.
      expect(await whoamiStatus(body.access_token)).toBe(200);
      const keys = await edge.database.pool.query('select count(*)::int as n from edge.oauth_keys');
      expect(keys.rows[0].n).toBe(1);
    } finally {
      await replica.close();
    }
  }, 60_000);

  it('refuses to register a client whose redirect URI the rules do not allow', async () => {
    const res = await fetch(`${edge.url}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://evil.example/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_redirect_uri');
  });
});

describe('the resource-server side', () => {
  it('answers 401 without a token with resource_metadata and the scopes, and serves RFC 9728 and RFC 8414 metadata', async () => {
    const res = await post('/mcp', null, listTools);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain(`resource_metadata="${edge.url}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain('scope="read write"');
    const prm = (await (await fetch(`${edge.url}/.well-known/oauth-protected-resource/authoring`)).json()) as Record<
      string,
      unknown
    >;
    expect(prm).toMatchObject({
      resource: `${edge.url}/authoring`,
      authorization_servers: [`${edge.url}/oauth`],
      scopes_supported: ['read', 'write'],
    });
    const as = (await (await fetch(`${edge.url}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<
      string,
      unknown
    >;
    expect(as.issuer).toBe(`${edge.url}/oauth`);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.registration_endpoint).toBe(`${edge.url}/oauth/reg`);
    expect(as.revocation_endpoint).toBeTruthy();
    // Client ID metadata documents are on (fetched only from public https URLs, so not exercised here).
    expect(as.client_id_metadata_document_supported).toBe(true);
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    const signout = await fetch(`${edge.url}/signout`, { redirect: 'manual' });
    expect(signout.headers.get('location')).toBe(`${edge.url}/oauth/session/end`);
    const page = await fetch(`${edge.url}/oauth/session/end`);
    expect(page.status).toBe(200);
    // Without a sign-in session there is nothing to confirm: the page posts the confirmation itself.
    expect(await page.text()).toContain(`action="${edge.url}/oauth/session/end/confirm"`);
  });

  it('refuses a token issued for /mcp at /authoring, and a read token on a write tool with the scope challenge', async () => {
    await enrollment.admin.upsertUser('boris@test', 'Борис Ученик', ['Student', 'Course Creator']);
    const { tokens } = await authorize('boris@test', 'read');
    expect(tokens.scope).toBe('read');
    expect(await whoamiStatus(tokens.access_token)).toBe(200);
    const elsewhere = await post('/authoring', tokens.access_token, listTools);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const write = await post('/mcp', tokens.access_token, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'set_space', arguments: { space: 'personal' } },
    });
    expect(write.status).toBe(403);
    const challenge = write.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="read write"');
    expect(challenge).toContain('resource_metadata=');
  }, 60_000);

  it('refuses an expired access token and a revoked one', async () => {
    const { clientId, tokens } = await authorize('vera@test');
    // Expire a fresh token (never used, so not cached) where the authorization server keeps it.
    const fresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: clientId,
    });
    expect(fresh.status).toBe(200);
    const expired = await edge.database.pool.query(
      `update edge.oauth_store set payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch from now())::bigint - 60))
       where kind = 'AccessToken' and id = $1`,
      [storedId(fresh.body.access_token)],
    );
    expect(expired.rowCount).toBe(1);
    expect(await whoamiStatus(fresh.body.access_token)).toBe(401);

    const live = await authorize('vera@test');
    expect(await whoamiStatus(live.tokens.access_token)).toBe(200);
    const revoked = await fetch(`${edge.url}/oauth/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: live.tokens.refresh_token as string, client_id: live.clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(await refusedSoon(live.tokens.access_token)).toBe(401);
    await eventually(async () => {
      const audit = await edge.database.pool.query(
        `select kind from edge.audit_log where user_id = 'vera@test' and kind like 'oauth_%' order by id`,
      );
      expect(audit.rows.map((r) => r.kind)).toEqual(['oauth_grant', 'oauth_grant', 'oauth_revocation']);
    });
  }, 60_000);

  it('detects a refresh-token reuse and ends the whole grant', async () => {
    const { clientId, tokens } = await authorize('anna@test');
    const first = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: clientId,
    });
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(await whoamiStatus(first.body.access_token)).toBe(200);
    const reuse = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: clientId,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    const rotated = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: clientId,
    });
    expect(rotated.body.error).toBe('invalid_grant');
    expect(await refusedSoon(first.body.access_token)).toBe(401);
  }, 60_000);
});

describe('sign-out', () => {
  it('asks in Russian, ends the sign-in session, and the next authorization asks for the password again', async () => {
    await enrollment.admin.upsertUser('emil@test', 'Эмиль Ученик', ['Student']);
    await enrollment.admin.setPassword('emil@test', PASSWORD);
    const clientId = await registerClient();
    const authUrl = () => {
      const url = new URL(`${edge.url}/oauth/auth`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: callback.url,
        scope: 'read',
        resource: `${edge.url}/mcp`,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }).toString();
      return url.href;
    };
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authUrl(), { waitUntil: 'domcontentloaded' });
    await page.type('#login', 'emil@test');
    await page.type('#password', PASSWORD);
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#submit')]);
    expect(await page.$('#allow')).toBeTruthy();
    // Signed in: a new authorization goes straight to consent.
    await page.goto(authUrl(), { waitUntil: 'domcontentloaded' });
    expect(await page.$('#password')).toBeNull();

    await page.goto(`${edge.url}/signout`, { waitUntil: 'domcontentloaded' });
    expect(await page.content()).toContain('Выйти из Studium?');
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#logout')]);
    expect(await page.content()).toContain('Вы вышли из Studium');
    await page.goto(authUrl(), { waitUntil: 'domcontentloaded' });
    expect(await page.$('#password')).toBeTruthy();
    await context.close();
  }, 60_000);
});

describe('sign-in limits', () => {
  it('refuses sign-in from an address after too many failures for one login there, even with the right password', async () => {
    await enrollment.admin.upsertUser('gleb@test', 'Глеб Ученик', ['Student']);
    await enrollment.admin.setPassword('gleb@test', PASSWORD);
    const clientId = await registerClient();
    const { challenge } = pkce();
    const url = new URL(`${edge.url}/oauth/auth`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback.url,
      scope: 'read',
      resource: `${edge.url}/mcp`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url.href, { waitUntil: 'domcontentloaded' });
    const attempt = async (password: string) => {
      await page.type('#login', 'gleb@test');
      await page.type('#password', password);
      const [response] = await Promise.all([
        page.waitForNavigation({ waitUntil: 'domcontentloaded' }),
        page.click('#submit'),
      ]);
      return { status: response?.status(), text: await page.$eval('body', (b) => b.textContent ?? '') };
    };
    for (let i = 0; i < 3; i++) {
      const wrong = await attempt('неверный-пароль');
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('Неверный логин или пароль.');
      await page.$eval('#login', (el) => {
        (el as HTMLInputElement).value = '';
      });
    }
    const limited = await attempt(PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('Слишком много попыток входа');
    await context.close();
    // A failed sign-in answers before its audit row is written (the row is recorded in the
    // background): the third may still be on its way.
    await eventually(async () => {
      const audit = await edge.database.pool.query(
        `select count(*)::int as n from edge.audit_log where kind = 'oauth_login_failed' and user_id = 'gleb@test'`,
      );
      expect(audit.rows[0].n).toBe(3);
    });
  }, 60_000);
});

/** The admin CLI as an operator runs it (a separate process), with optional stdin. */
function cli(args: string[], input = ''): Promise<string> {
  const root = resolve(import.meta.dirname, '..');
  return new Promise((done, fail) => {
    const child = spawn(resolve(root, 'node_modules/.bin/tsx'), [resolve(root, 'scripts/cli.ts'), ...args], {
      env: { ...process.env, DATABASE_URL: env.databaseUrl, SUBJECT_PREFIX: env.prefix, ...env.natsEnv('operator') },
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
    child.stdin.end(input);
  });
}

describe('API tokens beside OAuth, and the admin CLI', { timeout: 120_000 }, () => {
  it('keeps API tokens working unchanged; the CLI sets the password, lists grants, and one revocation ends both', async () => {
    await enrollment.admin.upsertUser('dina@test', 'Дина Куратор', ['Student', 'Course Creator']);
    await cli(['user', 'password', 'dina@test'], `${PASSWORD}\n`);
    const apiToken = (await enrollment.admin.issueToken('dina@test')).token;
    const { clientId, tokens } = await authorize('dina@test');

    const agent = await connectAgent('v2', `${edge.url}/mcp`, apiToken);
    expect(data(await agent.callTool('whoami', {})).user).toBe('dina@test');
    await agent.close();
    expect((await post('/authoring', apiToken, listTools)).status).toBe(200);
    expect(await whoamiStatus(tokens.access_token)).toBe(200);

    const listed = await cli(['grant', 'list', 'dina@test']);
    expect(listed).toContain(clientId);
    expect(listed).toContain('Ручной клиент');

    expect(await cli(['user', 'revoke', 'dina@test'])).toContain('1 API token(s) and 1 OAuth grant(s) revoked');
    expect(await refusedSoon(tokens.access_token)).toBe(401);
    expect(await refusedSoon(apiToken)).toBe(401);
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: clientId,
    });
    expect(refresh.body.error).toBe('invalid_grant');
    const audit = await edge.database.pool.query(
      `select kind from edge.audit_log where user_id = 'dina@test' and kind like 'oauth_%' order by id`,
    );
    expect(audit.rows.map((r) => r.kind)).toEqual(['oauth_grant', 'oauth_revocation']);
  });
});
