import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestEnv, type TestEnv } from '@studium/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../test/support/browser.ts';
import { startEdge } from '../../../test/support/stack.ts';
import { startHomeworkStack } from './support/stack.ts';

// The upload window as a person meets it: the real HTML resource from the edge, rendered in
// headless Chromium inside a minimal MCP Apps host page (postMessage JSON-RPC), two files dropped
// on the zone and «Сдать» pressed; the window calls store_homework_file through the host.
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

/** A minimal MCP Apps host: answers ui/initialize, sends the tool input and result, relays tools/call. */
const HOST = `<!doctype html><html><body><iframe id="app" style="width:600px;height:500px"></iframe><script>
window.messages = [];
window.start = (html, input, result) => {
  const frame = document.getElementById('app');
  const reply = (id, res) => frame.contentWindow.postMessage({ jsonrpc: '2.0', id, result: res }, '*');
  window.addEventListener('message', async (e) => {
    const m = e.data;
    if (!m || m.jsonrpc !== '2.0' || e.source !== frame.contentWindow) return;
    if (m.method === 'ui/initialize') reply(m.id, { protocolVersion: '2026-01-26', hostInfo: { name: 'test-host', version: '1' }, hostCapabilities: { serverTools: {} }, hostContext: {} });
    else if (m.method === 'ui/notifications/initialized') {
      frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: input } }, '*');
      frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: result }, '*');
    } else if (m.method === 'tools/call') reply(m.id, await window.hostCallTool(m.params));
    else if (m.method === 'ui/message') { window.messages.push(m.params); reply(m.id, {}); }
  });
  frame.srcdoc = html;
};
</script></body></html>`;

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

    const page = await browser.newPage();
    const calls: unknown[] = [];
    await page.exposeFunction('hostCallTool', async (params: { name: string; arguments: Record<string, unknown> }) => {
      calls.push(params.name);
      return client.callTool(params);
    });
    await page.setContent(HOST);
    await page.evaluate(([h, i, r]) => (window as unknown as { start: (...a: unknown[]) => void }).start(h, i, r), [
      html,
      input,
      opened,
    ] as const);
    const frame = await (await page.waitForSelector('#app'))?.contentFrame();
    if (!frame) throw new Error('no window frame');
    await frame.waitForFunction(() => document.getElementById('title')?.textContent?.includes('Текст или файлы'));
    await frame.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['%PDF-1.7\nпротокол встречи'], 'protocol.pdf', { type: 'application/pdf' }));
      dt.items.add(new File(['Заметки: ведёт Аня\n'], 'notes.txt', { type: 'text/plain' }));
      const zone = document.getElementById('zone') as HTMLElement;
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await frame.waitForFunction(() => document.querySelectorAll('#list li').length === 2);
    await frame.click('#submit');
    await frame.waitForSelector('#status.done', { timeout: 15_000 });
    // The window shows «Сдано» first and then posts ui/message to the host: wait for it to arrive.
    await page.waitForFunction(() => (window as unknown as { messages: unknown[] }).messages.length > 0);
    const messages = await page.evaluate(() => (window as unknown as { messages: unknown[] }).messages);
    expect(JSON.stringify(messages)).toContain('Сдал файлы домашнего задания: protocol.pdf, notes.txt');
    expect(calls).toEqual(['store_homework_file']);
    await page.close();

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
