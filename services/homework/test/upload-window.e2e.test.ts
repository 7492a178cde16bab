import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestEnv, type TestEnv } from '@studium/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../test/support/browser.ts';
import { startEdge } from '../../../test/support/stack.ts';
import { openViewHost } from '../../../test/support/view-host.ts';
import { startHomeworkStack } from './support/stack.ts';

// The upload window as a person meets it: the real HTML resource from the edge, rendered in
// headless Chromium and hosted by the ext-apps AppBridge (test/support/view-host.ts), two files
// dropped on the zone and «Сдать» pressed; the window calls store_homework_file through the host.
// It reports its size as its content changes, follows the host's theme, and ignores messages
// from any window but its host.
let env: TestEnv;
let stack: Awaited<ReturnType<typeof startHomeworkStack>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let client: Client;
let browser: Browser;

beforeAll(async () => {
  env = await createTestEnv('hw-window');
  stack = await startHomeworkStack(env);
  edge = await startEdge(env);
  const token = (await stack.enrollment.admin.issueToken('anna@hw')).token;
  client = new Client(
    { name: 'apps-host', version: '1.0.0' },
    {
      capabilities: {
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      } as never,
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${edge.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await edge?.close();
  await stack?.close();
  await env?.cleanup();
});

describe('the upload window in Chromium', () => {
  it('takes two dropped files and submits them as one version through store_homework_file', async () => {
    const lesson = stack.lesson('l-both');
    const { tools } = await client.listTools();
    const upload = tools.find((t) => t.name === 'upload_homework_file') as {
      _meta?: { ui?: { resourceUri?: string } };
    };
    const store = tools.find((t) => t.name === 'store_homework_file') as { _meta?: { ui?: { visibility?: string[] } } };
    expect(store._meta?.ui?.visibility).toEqual(['app']);
    const uri = String(upload._meta?.ui?.resourceUri);
    const resource = await client.readResource({ uri });
    const html = String((resource.contents[0] as { text: string }).text);
    expect(html).toContain('Сдать');
    const input = { lesson };
    const opened = await client.callTool({ name: 'upload_homework_file', arguments: input });
    expect((opened.structuredContent as { data: { shown: string; space: string } }).data).toMatchObject({
      shown: 'window',
      space: 'acme',
    });

    const host = await openViewHost(browser, (params) => client.callTool(params as never), { width: 600, height: 500 });
    await host.open(html, { args: input, result: opened }, 'dark');
    const frame = await host.view();
    await frame.waitForFunction(() => document.getElementById('title')?.textContent?.includes('Текст или файлы'));
    // The host's theme, at start and when it changes.
    const background = () => frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await frame.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await background()).toBe('rgb(28, 28, 30)');
    await host.setTheme('light');
    await frame.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    expect(await background()).toBe('rgb(255, 255, 255)');
    // The window's size reaches the host (ui/notifications/size-changed): the frame's width.
    await expect.poll(async () => (await host.sizes()).at(-1)?.width, { timeout: 10_000 }).toBe(600);
    const before = (await host.sizes()).at(-1)?.height ?? 0;

    // A window that is not the host posts a tool result for another lesson: the window ignores it.
    const forged = (title: string) => ({
      jsonrpc: '2.0',
      method: 'ui/notifications/tool-result',
      params: { structuredContent: { ok: true, data: { lesson: 'l-forged', space: 'personal', title } } },
    });
    await host.forge(forged('ПОДДЕЛКА'), 'intruder');
    await frame.waitForTimeout(300);
    expect(await frame.$eval('#title', (e) => e.textContent)).not.toContain('ПОДДЕЛКА');

    await frame.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['%PDF-1.7\nпротокол встречи'], 'protocol.pdf', { type: 'application/pdf' }));
      dt.items.add(new File(['Заметки: ведёт Аня\n'], 'notes.txt', { type: 'text/plain' }));
      const zone = document.getElementById('zone') as HTMLElement;
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await frame.waitForFunction(() => document.querySelectorAll('#list li').length === 2);
    // Two rows more: the window reports its new height.
    await expect
      .poll(async () => (await host.sizes()).at(-1)?.height ?? 0, { timeout: 10_000 })
      .toBeGreaterThan(before);
    await frame.click('#submit');
    await frame.waitForSelector('#status.done', { timeout: 15_000 });
    // The window shows «Сдано» first and then posts ui/message to the host: wait for it to arrive.
    await expect.poll(async () => (await host.messages()).length).toBeGreaterThan(0);
    expect(JSON.stringify(await host.messages())).toContain('Сдал файлы домашнего задания: protocol.pdf, notes.txt');
    const calls = await host.toolCalls();
    expect(calls.map((c) => c.name)).toEqual(['store_homework_file']);
    // The files went to the lesson the window was opened for, not the forged one.
    expect(calls[0].arguments).toMatchObject({ lesson, space: 'acme' });
    // The same message from the host itself is taken: what kept the forged one out was its source.
    await host.forge(forged('от хоста'), 'parent');
    await frame.waitForFunction(() => document.getElementById('title')?.textContent?.includes('от хоста'));
    await host.page.close();

    // The files arrived: the submission has them, and their bytes match what was dropped.
    const mine = await client.callTool({ name: 'my_homework', arguments: { lesson } });
    const sub = (
      mine.structuredContent as {
        data: { submission: { files: Array<{ name: string; sha256: string; url: string }> } };
      }
    ).data.submission;
    expect(sub.files.map((f) => f.name)).toEqual(['protocol.pdf', 'notes.txt']);
    const sha = (s: string) => createHash('sha256').update(Buffer.from(s)).digest('hex');
    expect(sub.files.map((f) => f.sha256)).toEqual([sha('%PDF-1.7\nпротокол встречи'), sha('Заметки: ведёт Аня\n')]);
  }, 60_000);
});
