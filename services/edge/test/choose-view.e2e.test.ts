import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTestEnv, type TestEnv } from '@studium/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../test/support/browser.ts';
import { startEdge, startEnrollment } from '../../../test/support/stack.ts';
import { openViewHost } from '../../../test/support/view-host.ts';

// The choose card as a chat host renders it: the HTML resource from the real edge, hosted by the
// ext-apps AppBridge in headless Chromium (test/support/view-host.ts). It draws the buttons the
// server took, sends the pressed one as the student's message, reports its size, follows the
// host's theme, and ignores messages from any window but its host.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let client: Client;
let browser: Browser;
let html: string;

beforeAll(async () => {
  env = await createTestEnv('choose-view');
  enrollment = await startEnrollment(env);
  edge = await startEdge(env);
  await enrollment.admin.upsertUser('anna@choose', 'Анна Ученица', ['Student']);
  const token = (await enrollment.admin.issueToken('anna@choose')).token;
  client = new Client({ name: 'apps-host', version: '1.0.0' }, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },
  } as never);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${edge.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  const { tools } = await client.listTools();
  const choose = tools.find((t) => t.name === 'choose') as { _meta?: { ui?: { resourceUri?: string } } };
  const resource = await client.readResource({ uri: String(choose._meta?.ui?.resourceUri) });
  html = (resource.contents[0] as { text: string }).text;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await edge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

const PROMPT = 'С чего начнём?';

async function openCard(theme: 'light' | 'dark') {
  const args = { prompt: PROMPT, options: ['Тема', '  Моя задача ', ' '] };
  const result = await client.callTool({ name: 'choose', arguments: args });
  expect((result.structuredContent as { data: { shown: string } }).data.shown).toBe('card');
  const host = await openViewHost(browser, (p) => client.callTool(p as never));
  await host.open(html, { args, result }, theme);
  const frame = await host.view();
  await frame.waitForFunction(() => document.querySelectorAll('#opts button').length === 2);
  return { host, frame };
}

const buttons = (frame: Awaited<ReturnType<typeof openCard>>['frame']) =>
  frame.$$eval('#opts button', (bs) => bs.map((b) => b.textContent));

describe('the choose card in Chromium, hosted by AppBridge', () => {
  it('draws the options the server took, reports its size, follows the theme, sends the pressed one', async () => {
    const { host, frame } = await openCard('dark');
    // The options as choose returned them: trimmed, the empty one dropped.
    expect(await buttons(frame)).toEqual(['Тема', 'Моя задача']);
    expect(await frame.$eval('#prompt', (p) => p.textContent)).toBe(PROMPT);
    const background = () => frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await frame.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await background()).toBe('rgb(28, 28, 30)');
    // ui/notifications/size-changed: the frame's width and at least the card's height.
    await expect.poll(async () => (await host.sizes()).at(-1)?.width, { timeout: 10_000 }).toBe(640);
    const card = await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
    expect((await host.sizes()).at(-1)?.height ?? 0).toBeGreaterThanOrEqual(card);
    await host.setTheme('light');
    await frame.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    expect(await background()).toBe('rgb(255, 255, 255)');

    await frame.click('text=Моя задача');
    await expect.poll(async () => (await host.messages()).length).toBe(1);
    expect(await host.messages()).toEqual([
      { role: 'user', content: [{ type: 'text', text: `«${PROMPT}» — выбираю: Моя задача` }] },
    ]);
    expect(await frame.$$eval('#opts button', (bs) => bs.map((b) => (b as HTMLButtonElement).disabled))).toEqual([
      true,
      true,
    ]);
    await host.page.close();
  }, 60_000);

  it('ignores a message from a window that is not its host', async () => {
    const { host, frame } = await openCard('light');
    const forged = {
      jsonrpc: '2.0',
      method: 'ui/notifications/tool-input',
      params: { arguments: { prompt: 'Введите пароль', options: ['Хорошо'] } },
    };
    await host.forge(forged, 'intruder');
    await frame.waitForTimeout(300);
    expect(await frame.$eval('#prompt', (p) => p.textContent)).toBe(PROMPT);
    expect(await buttons(frame)).toEqual(['Тема', 'Моя задача']);
    // The same message from the host is taken: its source is what kept the other one out.
    await host.forge(forged, 'parent');
    await frame.waitForFunction(() => document.getElementById('prompt')?.textContent === 'Введите пароль');
    await host.page.close();
  }, 60_000);
});
