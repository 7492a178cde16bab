import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createTestEnv, type TestEnv } from '@studium/testing';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../test/support/browser.ts';
import { startEdge, startEnrollment } from '../../../test/support/stack.ts';
import { consentPage, loginPage, logoutPage } from '../src/oauth/pages.ts';
import { chooseEncoding, IMMUTABLE, loadWebAssets, WebAssetsMissing } from '../src/web/assets.ts';
import { ASSETS_DIR, type AssetManifest } from '../src/web/bundles.ts';

// The web apps' built assets as the edge serves them (issue 29): hashed files immutable and
// compressed by Accept-Encoding, pages revalidated by their ETag, a favicon everywhere, and a
// second view in Chromium that fetches no script again. The assets are the ones the tests' global
// setup built (scripts/build-web.ts), read by the real edge.
const PASSWORD = 'assets-secret-pass-1';
const USER = 'author@assets';
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let browser: Browser;
const manifest = JSON.parse(readFileSync(join(ASSETS_DIR, 'manifest.json'), 'utf8')) as AssetManifest;

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET whose body is the bytes on the wire (fetch would decode them). */
function get(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${edge.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Signs in on /login (the form, its double-submit cookie) and returns the session's Cookie header. */
async function signIn(): Promise<string> {
  const form = await get('/login');
  const loginCookie = String(form.headers['set-cookie']).split(';')[0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(form.body.toString())?.[1] ?? '';
  const res = await fetch(`${edge.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: loginCookie },
    body: new URLSearchParams({ csrf, next: '/', login: USER, password: PASSWORD }),
  });
  expect(res.status).toBe(303);
  const session = res.headers.getSetCookie().find((c) => c.startsWith('studium_session='));
  expect(session).toBeDefined();
  return String(session).split(';')[0] as string;
}

beforeAll(async () => {
  env = await createTestEnv('web-assets');
  enrollment = await startEnrollment(env);
  await enrollment.admin.upsertUser(USER, 'Автор Ассетов', ['Course Creator', 'Student']);
  await enrollment.admin.setPassword(USER, PASSWORD);
  edge = await startEdge(env, { REQUEST_TIMEOUT_MS: '3000' });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await edge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

describe('built web assets', () => {
  it('serves every hashed file immutable, brotli or gzip as Accept-Encoding asks', async () => {
    const texts = Object.entries(manifest.files).filter(([, f]) => f.encodings.length);
    expect(texts.length).toBeGreaterThanOrEqual(11);
    for (const [file, meta] of texts) {
      const plain = await get(`/assets/${file}`, { 'accept-encoding': 'identity' });
      expect(plain.status, file).toBe(200);
      expect(plain.headers['cache-control'], file).toBe(IMMUTABLE);
      expect(plain.headers['content-type'], file).toBe(meta.type);
      expect(plain.headers['content-encoding'], file).toBeUndefined();
      expect(plain.headers.vary, file).toBe('accept-encoding');
      const br = await get(`/assets/${file}`, { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.headers['content-encoding'], file).toBe('br');
      expect(br.headers['cache-control'], file).toBe(IMMUTABLE);
      expect(brotliDecompressSync(br.body).equals(plain.body), file).toBe(true);
      const gzip = await get(`/assets/${file}`, { 'accept-encoding': 'br;q=0, gzip' });
      expect(gzip.headers['content-encoding'], file).toBe('gzip');
      expect(gunzipSync(gzip.body).equals(plain.body), file).toBe(true);
    }
    // The tutor's script (the largest) is far smaller compressed.
    const tutor = await get(`/assets/${manifest.entries['tutor.js']}`, { 'accept-encoding': 'br' });
    expect(tutor.body.length).toBeLessThan(
      (await get(`/assets/${manifest.entries['tutor.js']}`, { 'accept-encoding': '' })).body.length / 3,
    );
    // KaTeX's fonts come with hashed names too, as they are (woff2 is compressed already).
    const font = Object.keys(manifest.files).find((f) => f.endsWith('.woff2')) as string;
    const woff2 = await get(`/assets/${font}`, { 'accept-encoding': 'br' });
    expect([woff2.status, woff2.headers['content-type'], woff2.headers['content-encoding']]).toEqual([
      200,
      'font/woff2',
      undefined,
    ]);
    expect(readFileSync(join(ASSETS_DIR, manifest.entries['katex.css']), 'utf8')).toContain(`/assets/${font}`);
    for (const path of ['/assets/nothing-AAAAAAAA.js', '/assets/../manifest.json', '/assets/manifest.json']) {
      expect((await get(path)).status, path).toBe(404);
    }
  });

  it('are required: without a build (or with half of one) the edge does not start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'studium-no-assets-'));
    try {
      expect(() => loadWebAssets(dir)).toThrow(WebAssetsMissing);
      expect(() => loadWebAssets(dir)).toThrow(/not built: no .*manifest\.json\. Build them with `npm run build`/);
      cpSync(join(ASSETS_DIR, 'manifest.json'), join(dir, 'manifest.json'));
      expect(() => loadWebAssets(dir)).toThrow(/incomplete: .* is missing/);
      cpSync(ASSETS_DIR, dir, { recursive: true });
      expect(loadWebAssets(dir).href('student.js')).toBe(`/assets/${manifest.entries['student.js']}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('chooses the encoding by the weights of Accept-Encoding', () => {
    const both = { br: 1, gzip: 1, identity: 1 };
    expect(chooseEncoding('gzip, deflate, br, zstd', both)).toBe('br');
    expect(chooseEncoding('gzip;q=1, br;q=0.5', both)).toBe('gzip');
    expect(chooseEncoding('br;q=0, *', both)).toBe('gzip');
    expect(chooseEncoding('*;q=0', both)).toBe('identity');
    expect(chooseEncoding(undefined, both)).toBe('identity');
    expect(chooseEncoding('br', { gzip: 1, identity: 1 })).toBe('identity');
  });

  it('answers a page re-requested with its ETag with 304, and another session with a new page', async () => {
    const cookie = await signIn();
    for (const path of ['/', '/cabinet', '/tutor']) {
      const first = await get(path, { cookie });
      expect(first.status, path).toBe(200);
      expect(first.headers['cache-control'], path).toBe('private, no-cache');
      const etag = String(first.headers.etag);
      expect(etag, path).toMatch(/^"[\w-]{27}"$/);
      const again = await get(path, { cookie, 'if-none-match': etag });
      expect([again.status, again.body.length, again.headers.etag], path).toEqual([304, 0, etag]);
      // A signed-out browser with the tag gets the sign-in, not the page it kept.
      const anonymous = await get(path, { 'if-none-match': etag });
      expect(anonymous.status, path).toBe(303);
      // Another session has another CSRF token: another page.
      const other = await get(path, { cookie: await signIn(), 'if-none-match': etag });
      expect(other.status, path).toBe(200);
      expect(other.headers.etag, path).not.toBe(etag);
    }
    // The chat page is the same for everyone (the teacher's token is asked by its script).
    const chat = await get('/chat');
    expect(chat.headers['cache-control']).toBe('no-cache');
    expect((await get('/chat', { 'if-none-match': `W/${chat.headers.etag}, "other"` })).status).toBe(304);
    // The sign-in form carries a one-time token: never kept.
    expect((await get('/login')).headers['cache-control']).toBe('no-store');
  });

  it('serves /favicon.ico and links the icon from every page', async () => {
    const icon = await get('/favicon.ico');
    expect([icon.status, icon.headers['content-type']]).toEqual([200, 'image/svg+xml']);
    expect(icon.body.toString()).toContain('<svg');
    const hashed = await get(`/assets/${manifest.entries['favicon.svg']}`, { 'accept-encoding': 'identity' });
    expect(hashed.body.equals(icon.body)).toBe(true);
    const cookie = await signIn();
    const link = `<link rel="icon" href="/assets/${manifest.entries['favicon.svg']}" type="image/svg+xml">`;
    for (const path of ['/', '/catalog', '/cabinet', '/tutor', '/chat', '/login']) {
      const page = await get(path, path === '/login' ? {} : { cookie });
      expect(page.body.toString(), path).toContain(link);
    }
    const view = {
      uid: 'u',
      clientName: 'c',
      user: 'u',
      scopes: ['read'],
      resources: [],
      redirectHost: 'h',
      staysConnected: null,
    };
    for (const html of [loginPage('uid', 'client'), consentPage(view), logoutPage(null)]) {
      expect(html).toContain('<link rel="icon" href="/favicon.ico" type="image/svg+xml">');
    }
  });
});

/** Every script request of a page view over the DevTools protocol: status, encoding, bytes on the wire. */
function watchScripts(cdp: CDPSession) {
  type Seen = { url: string; status: number; encoding?: string; wire: number; cached: boolean };
  // The events of one request may come in any order (served-from-cache before the response).
  const urls = new Map<string, string>();
  const responses = new Map<string, { status: number; encoding?: string; cached: boolean }>();
  const finished = new Map<string, number>();
  const fromCache = new Set<string>();
  cdp.on('Network.requestWillBeSent', (e) => {
    if (e.type === 'Script') urls.set(e.requestId, e.request.url);
  });
  cdp.on('Network.responseReceived', (e) => {
    const h = e.response.headers as Record<string, string>;
    responses.set(e.requestId, {
      status: e.response.status,
      encoding: h['content-encoding'] ?? h['Content-Encoding'],
      cached: Boolean(e.response.fromDiskCache || e.response.fromPrefetchCache),
    });
  });
  cdp.on('Network.requestServedFromCache', (e) => void fromCache.add(e.requestId));
  cdp.on('Network.loadingFinished', (e) => void finished.set(e.requestId, e.encodedDataLength));
  cdp.on('Network.loadingFailed', (e) => void finished.set(e.requestId, -1));
  return {
    /** The scripts requested since the last call, once each has finished loading. */
    async take(): Promise<Seen[]> {
      for (let i = 0; i < 250 && [...urls.keys()].some((id) => !finished.has(id)); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const all = [...urls].map(([id, url]) => ({
        url,
        status: responses.get(id)?.status ?? 0,
        encoding: responses.get(id)?.encoding,
        wire: finished.get(id) ?? -1,
        cached: fromCache.has(id) || Boolean(responses.get(id)?.cached),
      }));
      for (const m of [urls, responses, finished]) m.clear();
      fromCache.clear();
      return all;
    },
  };
}

async function view(page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => (document.getElementById('app')?.childElementCount ?? 0) > 0);
}

describe('in Chromium', () => {
  it('downloads each app script once, compressed; a second view takes it from the cache', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const scripts = watchScripts(cdp);
    // Signed in towards a page with no script: the first view of each app below is its first.
    await page.goto(`${edge.url}/login?next=/favicon.ico`);
    await page.fill('#login', USER);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL((u) => u.pathname === '/favicon.ico'), page.click('#submit')]);
    expect(await scripts.take()).toEqual([]);
    for (const [path, app] of [
      ['/', 'student'],
      ['/cabinet', 'cabinet'],
      ['/tutor', 'tutor'],
      ['/chat', 'chat'],
    ] as const) {
      const file = `/assets/${manifest.entries[`${app}.js`]}`;
      await view(page, `${edge.url}${path}`);
      const first = (await scripts.take()).filter((s) => s.url.endsWith(file));
      // The first view of an app downloads its script (the student's page is the first one).
      expect(first.length, path).toBe(1);
      expect(first[0]?.status, path).toBe(200);
      expect(['br', 'gzip'], path).toContain(first[0]?.encoding);
      expect(first[0]?.wire, path).toBeGreaterThan(0);
      if (app === 'tutor') {
        const size = readFileSync(join(ASSETS_DIR, manifest.entries['tutor.js'])).length;
        expect(first[0]?.wire).toBeLessThan(size / 2);
      }
      await view(page, `${edge.url}${path}`);
      // The second: no request at all, a cache hit, or at most a 304 (headers only).
      const seconds = (await scripts.take()).filter((s) => s.url.endsWith(file));
      for (const again of seconds) {
        expect(again.cached || again.status === 304, `${path}: ${JSON.stringify(again)}`).toBe(true);
        expect(again.cached ? 0 : again.wire, path).toBeLessThan(1024);
      }
    }
    await context.close();
  }, 60_000);
});
