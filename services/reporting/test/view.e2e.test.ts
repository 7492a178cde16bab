import { mkdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTestEnv, type TestEnv } from '@studium/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../test/support/browser.ts';
import { startEdge, startEnrollment } from '../../../test/support/stack.ts';
import { LARGE, seedLargeOrganization } from './support/large-org.ts';
import { startReporting } from './support/reporting.ts';

// The org_report MCP Apps view as a host renders it: the HTML resource read from the real edge,
// in an iframe of a host page in Debian's headless Chromium, talking to the edge through a real
// MCP client (tool result in, tools/call out), over the seeded 5,000 × 10 organization.
// STUDIUM_SCREENSHOTS=1 refreshes the one in the docs; otherwise it goes to the temp directory.
const SCREENSHOT =
  process.env.STUDIUM_SCREENSHOTS === '1'
    ? resolve(import.meta.dirname, '../../../docs/img/org-report-view.png')
    : join(tmpdir(), `org-report-view-${process.pid}.png`);
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let reporting: Awaited<ReturnType<typeof startReporting>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let client: Client;
let browser: Browser;
let page: Page;

const HOST_PAGE = `<!doctype html><html><body style="margin:0"><iframe id="view" style="border:0;width:1400px;height:900px"></iframe>
<script>
const frame = document.getElementById('view');
let initial = null;
const reply = (id, result) => frame.contentWindow.postMessage({ jsonrpc: '2.0', id, result }, '*');
window.addEventListener('message', async (e) => {
  const m = e.data;
  if (!m || m.jsonrpc !== '2.0' || e.source !== frame.contentWindow) return;
  if (m.method === 'ui/initialize') reply(m.id, { protocolVersion: '2026-01-26', hostInfo: { name: 'test-host', version: '1' },
    hostCapabilities: { serverTools: {} }, hostContext: { theme: 'light', displayMode: 'inline' } });
  else if (m.method === 'ui/notifications/initialized') {
    frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: initial.args } }, '*');
    frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: initial.result }, '*');
  } else if (m.method === 'tools/call') {
    window.toolCalls = (window.toolCalls || 0) + 1;
    reply(m.id, JSON.parse(await window.callTool(JSON.stringify(m.params))));
  }
});
window.openView = (html, first) => { initial = first; frame.srcdoc = html; };
</script></body></html>`;

beforeAll(async () => {
  env = await createTestEnv('reporting-view');
  enrollment = await startEnrollment(env);
  reporting = await startReporting(env);
  edge = await startEdge(env);
  await seedLargeOrganization(reporting.db);
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
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.exposeFunction('callTool', async (params: string) => {
    const p = JSON.parse(params) as { name: string; arguments?: Record<string, unknown> };
    return JSON.stringify(await client.callTool({ name: p.name, arguments: p.arguments ?? {} }));
  });
  await page.setContent(HOST_PAGE);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await edge?.close();
  await reporting?.close();
  await enrollment?.close();
  await env?.cleanup();
});

async function rows() {
  const frame = page.frames().find((f) => f !== page.mainFrame());
  if (!frame) throw new Error('no view frame');
  return {
    frame,
    list: await frame.$$eval('#rows tr', (trs) =>
      trs.map((tr) => ({
        user: (tr as HTMLElement).dataset.user ?? '',
        overdue: tr.classList.contains('overdue'),
        status: tr.querySelector('.status')?.className.replace('status ', '') ?? '',
        bar: (tr.querySelector('.bar i') as HTMLElement | null)?.style.width ?? '',
      })),
    ),
  };
}

describe('org_report MCP Apps view', () => {
  it('is served by the edge as an HTML resource tied to the tool', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'org_report') as { _meta?: { ui?: { resourceUri?: string } } };
    expect(tool._meta?.ui?.resourceUri).toBe('ui://studium/org-report.html');
    const res = await client.readResource({ uri: 'ui://studium/org-report.html' });
    const content = res.contents[0] as { mimeType?: string; text?: string };
    expect(content.mimeType).toBe('text/html;profile=mcp-app');
    expect(content.text).toContain('<table>');
  });

  it('renders the 5,000 × 10 report: summary, progress bars, overdue rows; sorts and filters', async () => {
    const res = await client.readResource({ uri: 'ui://studium/org-report.html' });
    const html = (res.contents[0] as { text: string }).text;
    const args = { limit: 500 };
    const result = await client.callTool({ name: 'org_report', arguments: args });
    await page.evaluate(
      ([h, first]) => (window as unknown as { openView: (a: string, b: unknown) => void }).openView(h, first),
      [html, { args, result }] as const,
    );
    await page.waitForFunction(
      () => document.querySelector('iframe')?.contentDocument?.querySelectorAll('#rows tr').length === 500,
      undefined,
      { timeout: 30_000 },
    );
    let { frame, list } = await rows();
    expect(await frame.$eval('.card[data-key=people] b', (b) => b.textContent)).toBe('5000');
    expect(list.some((r) => r.overdue)).toBe(true);
    expect(list.some((r) => r.bar === '40%')).toBe(true);
    // The rows come sorted by name; a click on the header turns the order around.
    expect(await frame.$eval('th[data-key=full_name]', (th) => th.getAttribute('aria-sort'))).toBe('ascending');
    await frame.click('th[data-key=full_name]');
    ({ list } = await rows());
    const users = list.map((r) => r.user);
    expect(users).toEqual([...users].sort().reverse());
    expect(await frame.$eval('th[data-key=full_name]', (th) => th.getAttribute('aria-sort'))).toBe('descending');
    // Filter by status: the view asks the server again through the host.
    await frame.selectOption('#status', { value: 'not_started' });
    await frame.waitForFunction(
      () =>
        !document.body.dataset.loading &&
        Array.from(document.querySelectorAll('#rows .status')).every((s) => s.classList.contains('not_started')),
      undefined,
      { timeout: 30_000 },
    );
    ({ list } = await rows());
    expect(list.length).toBe(500);
    expect(await page.evaluate(() => (window as unknown as { toolCalls: number }).toolCalls)).toBeGreaterThanOrEqual(1);
    // Only the overdue ones among them.
    await frame.click('#overdue');
    ({ list } = await rows());
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((r) => r.overdue && r.status === 'not_started')).toBe(true);
    await frame.click('#overdue');
    await frame.selectOption('#status', { value: '' });
    await frame.waitForFunction(
      () => !document.body.dataset.loading && document.querySelectorAll('#rows .status.completed').length > 0,
      undefined,
      { timeout: 30_000 },
    );
    await frame.click('th[data-key=full_name]');
    await mkdir(resolve(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT as `${string}.png`, clip: { x: 0, y: 0, width: 1400, height: 900 } });
    expect((await stat(SCREENSHOT)).size).toBeGreaterThan(10_000);
  }, 120_000);
});
