import { resolve } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Frame, Page } from 'playwright-core';

/** Where a tools/call of the view goes: the test's MCP client against the real edge. */
export type CallTool = (params: { name: string; arguments?: Record<string, unknown> }) => Promise<unknown>;

type Host = Window & {
  sizes: Array<{ width?: number; height?: number }>;
  messages: unknown[];
  toolCalls: Array<{ name: string; arguments?: Record<string, unknown> }>;
  openView(html: string, first: unknown, theme: string): Promise<void>;
  setTheme(theme: string): void;
  forge(message: unknown, from: 'intruder' | 'parent'): void;
};

let hostScript: Promise<string> | null = null;

/**
 * A page of headless Chromium that hosts one MCP Apps view with the ext-apps AppBridge
 * (support/apps-host.ts) in a frame of `width`×`height`, beside an intruder frame of the same
 * page that can post to the view as a foreign window.
 */
export async function openViewHost(browser: Browser, callTool: CallTool, frame = { width: 640, height: 700 }) {
  hostScript ??= build({
    entryPoints: [resolve(import.meta.dirname, 'apps-host.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    logLevel: 'error',
  }).then((r) => r.outputFiles[0].text);
  const page: Page = await browser.newPage({ viewport: { width: frame.width + 360, height: frame.height + 100 } });
  await page.exposeFunction('callTool', async (params: string) => JSON.stringify(await callTool(JSON.parse(params))));
  await page.setContent(`<!doctype html><html><body style="margin:0">
<iframe id="view" style="border:0;width:${frame.width}px;height:${frame.height}px"></iframe>
<iframe id="intruder" style="width:300px;height:50px" srcdoc="<script>window.send = (t, m) => t.postMessage(m, '*');</script>"></iframe>
</body></html>`);
  await page.addScriptTag({ content: await hostScript });
  const read = <K extends 'sizes' | 'messages' | 'toolCalls'>(key: K) =>
    page.evaluate((k) => (window as unknown as Host)[k], key) as Promise<Host[K]>;
  return {
    page,
    /** Opens the view's HTML with the tool's first input and result, in the host's theme. */
    open: (html: string, first: { args: Record<string, unknown>; result: unknown }, theme: 'light' | 'dark') =>
      page.evaluate(([h, f, t]) => (window as unknown as Host).openView(h, f, t), [html, first, theme] as const),
    /** The view's frame. */
    async view(): Promise<Frame> {
      const frame = await (await page.$('#view'))?.contentFrame();
      if (!frame) throw new Error('no view frame');
      return frame;
    },
    /** Every size the view reported (ui/notifications/size-changed), in order. */
    sizes: () => read('sizes'),
    /** Every ui/message the view sent. */
    messages: () => read('messages'),
    /** Every tools/call the view made through the host. */
    toolCalls: () => read('toolCalls'),
    setTheme: (theme: 'light' | 'dark') => page.evaluate((t) => (window as unknown as Host).setTheme(t), theme),
    forge: (message: unknown, from: 'intruder' | 'parent') =>
      page.evaluate(([m, f]) => (window as unknown as Host).forge(m, f), [message, from] as const),
  };
}
