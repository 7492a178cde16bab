import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';

/** A free local TCP port (the edge's issuer URL must be known before it starts). */
/**
 * Runs `start` on a free port, and again on another when the port was taken between choosing it
 * and listening (EADDRINUSE): for a server whose own address must be known before it listens.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= attempts) throw err;
    }
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A local page that plays an OAuth client's redirect URI: it answers 200 to whatever arrives. */
export async function startCallback(): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, server };
}

export { launchChromium } from './browser.ts';

/**
 * Opens an authorization URL in a fresh browser context and plays the user: signs in on the
 * sign-in page with login and password, allows on the consent page, until the browser reaches
 * the redirect URI. Returns that final URL (with `code` or `error`) and the HTML of the last
 * Studium page seen. With `method: 'POST'` the request's parameters are posted from a form on a
 * page of no origin (a client's own page), as RFC 6749 allows.
 */
export async function signInWithBrowser(
  browser: Browser,
  authorizationUrl: string,
  redirectUri: string,
  login: string,
  password: string,
  method: 'GET' | 'POST' = 'GET',
): Promise<{ url: URL; pages: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const pages: string[] = [];
  try {
    if (method === 'POST') await postForm(page, authorizationUrl);
    else await page.goto(authorizationUrl, { waitUntil: 'domcontentloaded' });
    for (let step = 0; step < 6 && !page.url().startsWith(redirectUri); step++) {
      pages.push(await page.content());
      if (await page.$('#password')) {
        await page.type('#login', login);
        await page.type('#password', password);
        await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#submit')]);
      } else if (await page.$('#allow')) {
        await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#allow')]);
      } else {
        break;
      }
    }
    return { url: new URL(page.url()), pages };
  } finally {
    await context.close();
  }
}

/** Posts a URL's query parameters as a form (application/x-www-form-urlencoded) to the URL without them. */
async function postForm(page: Page, url: string): Promise<void> {
  const target = new URL(url);
  const fields = [...target.searchParams].map(([name, value]) => ({ name, value }));
  target.search = '';
  await page.setContent('<form method="post" id="client-form"></form>');
  await page.$eval(
    '#client-form',
    (form, { action, fields }) => {
      const f = form as HTMLFormElement;
      f.action = action;
      for (const { name, value } of fields) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value;
        f.append(input);
      }
    },
    { action: target.href, fields },
  );
  await Promise.all([
    page.waitForNavigation({ waitUntil: 'domcontentloaded' }),
    page.$eval('#client-form', (f) => (f as HTMLFormElement).submit()),
  ]);
}

/** PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The SDK's OAuthClientProvider, in memory, as a desktop assistant would keep it. */
export class MemoryProvider implements OAuthClientProvider {
  client?: { client_id: string; client_secret?: string };
  saved?: { access_token: string; refresh_token?: string; token_type: string; scope?: string };
  verifier = '';
  authorizationUrl?: URL;
  constructor(
    readonly redirectUrl: string,
    readonly name = 'Тестовый ассистент',
  ) {}
  get clientMetadata() {
    return {
      client_name: this.name,
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
