import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import type { Browser, Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../test/support/browser.ts';
import { startEdge, startEnrollment } from '../../../test/support/stack.ts';
import { openViewHost } from '../../../test/support/view-host.ts';
import { currentGeneration } from '../src/generation.ts';
import { LARGE, seedLargeOrganization } from './support/large-org.ts';
import { startReporting } from './support/reporting.ts';

// The org_report view in the frame sizes a chat host gives it (640–900 px), hosted by the ext-apps
// SDK's own AppBridge in headless Chromium, with the real edge behind tools/call: every column is
// on screen, the view reports its size to the host and follows the host's theme, light or dark,
// and a message from a window other than its host is ignored.
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
let host: Awaited<ReturnType<typeof openViewHost>>;
let frame: Frame;

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
  browser = await launchChromium();
  host = await openViewHost(browser, (params) =>
    client.callTool({ name: params.name, arguments: params.arguments ?? {} }),
  );
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await edge?.close();
  await reporting?.close();
  await enrollment?.close();
  await env?.cleanup();
});

const page = () => host.page;
const view = () => frame;

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
  it('opens in the host theme, reports its size, fits every column, follows a theme change, ignores other windows', async () => {
    const res = await client.readResource({ uri: 'ui://studium/org-report.html' });
    const html = (res.contents[0] as { text: string }).text;
    const args = { limit: 50 };
    const result = await client.callTool({ name: 'org_report', arguments: args });
    await host.open(html, { args, result }, 'dark');
    frame = await host.view();
    await page().waitForFunction(
      () => document.querySelector('iframe')?.contentDocument?.querySelectorAll('#rows tr').length === 50,
      undefined,
      { timeout: 30_000 },
    );
    expect(await view().evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await background()).toBe('rgb(28, 28, 30)');
    expect(await view().$eval('#rows tr td', (td) => td.textContent)).toContain('Александра');

    for (const width of [640, 760, 900]) {
      await page().evaluate((w) => {
        (document.getElementById('view') as HTMLIFrameElement).style.width = `${w}px`;
      }, width);
      // The view tells the host its new size (the frame's width, the content's height).
      await expect
        .poll(async () => (await host.sizes()).some((s) => s.width === width), { timeout: 10_000 })
        .toBe(true);
      const size = (await host.sizes()).at(-1) as { width: number; height: number };
      expect(size.width).toBe(width);
      const content = await view().evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
      expect(size.height).toBeGreaterThanOrEqual(content);
      if (width === 640) {
        await mkdir(resolve(SCREENSHOT, '..'), { recursive: true });
        await page().screenshot({ path: SCREENSHOT as `${string}.png`, clip: { x: 0, y: 0, width: 640, height: 700 } });
      }
      // Below 720 px the organization shows under the name instead of in its own column.
      const narrow = width < 720;
      const columns = ALL_COLUMNS.filter((c) => !narrow || c !== 'organization');
      expect(await overflow(), `${width} px`).toEqual({ page: 0, table: 0, cut: 0, columns });
      const org = await view().$eval('#rows tr .org-inline', (e) => (e as HTMLElement).offsetWidth > 0);
      expect(org).toBe(narrow);
    }
    // The host switches to light: the view follows.
    await host.setTheme('light');
    await view().waitForFunction(() => document.documentElement.dataset.theme === 'light');
    expect(await background()).toBe('rgb(255, 255, 255)');
    // Another window posts an empty report as if it were the host: the view ignores it.
    const rows = () => view().evaluate(() => document.querySelectorAll('#rows tr').length);
    const forged = {
      jsonrpc: '2.0',
      method: 'ui/notifications/tool-result',
      params: { structuredContent: { ok: true, data: { rows: [], summary: {}, total: 0, next_offset: null } } },
    };
    await host.forge(forged, 'intruder');
    await view().waitForTimeout(300);
    expect(await rows()).toBe(50);
    // The same from the host is taken: its source is what kept the other one out.
    await host.forge(forged, 'parent');
    await expect.poll(rows).toBe(0);
  }, 120_000);
});
