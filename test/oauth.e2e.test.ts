import type { Server } from 'node:http';
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { createTestEnv, type TestEnv } from '@studium/testing';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, data, type ToolResult } from './support/clients.ts';
import { freePort, launchChromium, pkce, signInWithBrowser, startCallback } from './support/oauth.ts';
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
  const port = await freePort();
  edge = await startEdge(env, {
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOGIN_ATTEMPTS_PER_MINUTE: '3',
  });
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

/** The SDK's OAuthClientProvider, in memory, as a desktop assistant would keep it. */
class MemoryProvider implements OAuthClientProvider {
  client?: { client_id: string; client_secret?: string };
  saved?: { access_token: string; refresh_token?: string; token_type: string; scope?: string };
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata() {
    return {
      client_name: 'Тестовый ассистент',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: { client_id: string }) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: NonNullable<MemoryProvider['saved']>) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  discovery?: unknown;
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
}

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
  }, 60_000);
});
