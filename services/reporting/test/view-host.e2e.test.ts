import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { build } from 'esbuild';
import { sql } from 'kysely';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../test/support/browser.ts';
import { startEdge, startEnrollment } from '../../../test/support/stack.ts';
import { currentGeneration } from '../src/generation.ts';
import { LARGE, seedLargeOrganization } from './support/large-org.ts';
import { startReporting } from './support/reporting.ts';

// The org_report view in the frame sizes a chat host gives it (640–900 px), hosted by the ext-apps
// SDK's own AppBridge in headless Chromium, with the real edge behind tools/call: every column is
// on screen, the view reports its size to the host and follows the host's theme, light or dark.
// STUDIUM_SCREENSHOTS=1 writes the 640 px dark screenshot into the docs.
const SCREENSHOT =
  process.env.STUDIUM_SCREENSHOTS === '1'
    ? resolve(import.meta.dirname, '../../../docs/img/org-report-640-dark.png')
    : join(tmpdir(), `org-report-640-${process.pid}.png`);
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let reporting: Awaited<ReturnType<typeof startReporting>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let client: Client;
let browser: Browser;
let page: Page;

const HOST_PAGE = `<!doctype html><html><body style="margin:0">
<iframe id="view" style="border:0;width:640px;height:700px"></iframe></body></html>`;

beforeAll(async () => {
  env = await createTestEnv('reporting-view-host');
  enrollment = await startEnrollment(env);
  reporting = await startReporting(env);
  edge = await startEdge(env);
  await seedLargeOrganization(reporting.db);
  // Long names and titles, as real ones are: they must wrap, not push columns out of the frame.
  const g = await currentGeneration(reporting.db);
  await sql`update ${sql.table(`${g}.users`)} set full_name = 'Александра Константинопольская-Щедрина'
    where id in ('u0000@big', 'u0001@big')`.execute(reporting.db);
  await sql`update ${sql.table(`${g}.courses`)} set title = 'Переговоры с заказчиком и управление ожиданиями'
    where course = 'big-c0'`.execute(reporting.db);
  await enrollment.admin.upsertUser(LARGE.manager, 'Руководитель Большой', ['Student']);
  const token = (await enrollment.admin.issueToken(LARGE.manager)).token;
  client = new Client({ name: 'apps-host', version: '1.0.0' }, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },
  } as never);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${edge.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  const host = await build({
    entryPoints: [resolve(import.meta.dirname, 'support/apps-host.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    logLevel: 'error',
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  await page.exposeFunction('callTool', async (params: string) => {
    const p = JSON.parse(params) as { name: string; arguments?: Record<string, unknown> };
    return JSON.stringify(await client.callTool({ name: p.name, arguments: p.arguments ?? {} }));
  });
  await page.setContent(HOST_PAGE);
  await page.addScriptTag({ content: host.outputFiles[0].text });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await edge?.close();
  await reporting?.close();
  await enrollment?.close();
  await env?.cleanup();
});

type Host = Window & {
  sizes: Array<{ width?: number; height?: number }>;
  openView(html: string, first: unknown, theme: string): Promise<void>;
  setTheme(theme: string): void;
};

function view(): Frame {
  const frame = page.frames().find((f) => f !== page.mainFrame());
  if (!frame) throw new Error('no view frame');
  return frame;
}

/** What sticks out of the frame: the page's and the table's overflow, and the columns past the edge. */
const overflow = () =>
  view().evaluate(() => {
    const root = document.documentElement;
    const wrap = document.getElementById('table-wrap') as HTMLElement;
    const edge = root.clientWidth;
    return {
      page: root.scrollWidth - root.clientWidth,
      table: wrap.scrollWidth - wrap.clientWidth,
      cut: Array.from(document.querySelectorAll('th')).filter((th) => th.getBoundingClientRect().right > edge + 0.5)
        .length,
      columns: Array.from(document.querySelectorAll('th'))
        .filter((th) => th.getBoundingClientRect().width > 0)
        .map((th) => (th as HTMLElement).dataset.key),
    };
  });

const ALL_COLUMNS = [
  'full_name',
  'organization',
  'course_title',
  'status',
  'progress',
  'mandatory',
  'deadline',
  'last_activity',
  'document',
];

const background = () => view().evaluate(() => getComputedStyle(document.body).backgroundColor);

describe('the org_report view in a 640–900 px frame, hosted by AppBridge', () => {
  it('opens in the host theme, reports its size, fits every column, and follows a theme change', async () => {
    const res = await client.readResource({ uri: 'ui://studium/org-report.html' });
    const html = (res.contents[0] as { text: string }).text;
    const args = { limit: 50 };
    const result = await client.callTool({ name: 'org_report', arguments: args });
    await page.evaluate(([h, first]) => (window as unknown as Host).openView(h, first, 'dark'), [
      html,
      { args, result },
    ] as const);
    await page.waitForFunction(
      () => document.querySelector('iframe')?.contentDocument?.querySelectorAll('#rows tr').length === 50,
      undefined,
      { timeout: 30_000 },
    );
    expect(await view().evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await background()).toBe('rgb(28, 28, 30)');
    expect(await view().$eval('#rows tr td', (td) => td.textContent)).toContain('Александра');

    for (const width of [640, 760, 900]) {
      await page.evaluate((w) => {
        (document.getElementById('view') as HTMLIFrameElement).style.width = `${w}px`;
      }, width);
      // The view tells the host its new size (the frame's width, the content's height).
      await page.waitForFunction((w) => (window as unknown as Host).sizes.some((s) => s.width === w), width, {
        timeout: 10_000,
      });
      const size = (await page.evaluate(() => (window as unknown as Host).sizes.at(-1))) as {
        width: number;
        height: number;
      };
      expect(size.width).toBe(width);
      const content = await view().evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
      expect(size.height).toBeGreaterThanOrEqual(content);
      if (width === 640) {
        await mkdir(resolve(SCREENSHOT, '..'), { recursive: true });
        await page.screenshot({ path: SCREENSHOT as `${string}.png`, clip: { x: 0, y: 0, width: 640, height: 700 } });
      }
      // Below 720 px the organization shows under the name instead of in its own column.
      const narrow = width < 720;
      const columns = ALL_COLUMNS.filter((c) => !narrow || c !== 'organization');
      expect(await overflow(), `${width} px`).toEqual({ page: 0, table: 0, cut: 0, columns });
      const org = await view().$eval('#rows tr .org-inline', (e) => (e as HTMLElement).offsetWidth > 0);
      expect(org).toBe(narrow);
    }
    // The host switches to light: the view follows.
    await page.evaluate(() => (window as unknown as Host).setTheme('light'));
    await view().waitForFunction(() => document.documentElement.dataset.theme === 'light');
    expect(await background()).toBe('rgb(255, 255, 255)');
  }, 120_000);
});
