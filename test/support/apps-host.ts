// Browser code of the MCP Apps host the view tests run: the ext-apps SDK's own AppBridge over
// postMessage, as a real host (Claude, VS Code…) hosts a view. Bundled by esbuild (view-host.ts)
// and loaded into the host page; tools/call goes back to Node through window.callTool. The page
// also has a second frame, #intruder, that can post messages to the view as another window would.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

type First = { args: Record<string, unknown>; result: unknown };
type Theme = 'light' | 'dark';
type HostWindow = Window & {
  callTool(params: string): Promise<string>;
  sizes: Array<{ width?: number; height?: number }>;
  messages: unknown[];
  toolCalls: Array<{ name: string; arguments?: Record<string, unknown> }>;
  bridge?: AppBridge;
  openView(html: string, first: First, theme: Theme): Promise<void>;
  setTheme(theme: Theme): void;
  forge(message: unknown, from: 'intruder' | 'parent'): void;
};
const w = window as unknown as HostWindow;
w.sizes = [];
w.messages = [];
w.toolCalls = [];

w.openView = async (html, first, theme) => {
  const frame = document.getElementById('view') as HTMLIFrameElement;
  const bridge = new AppBridge(
    null,
    { name: 'test-host', version: '1.0.0' },
    { serverTools: {} },
    { hostContext: { theme, displayMode: 'inline' } },
  );
  bridge.oncalltool = async (params) => {
    w.toolCalls.push(params);
    return JSON.parse(await w.callTool(JSON.stringify(params)));
  };
  bridge.onsizechange = (size) => {
    w.sizes.push(size);
  };
  bridge.onmessage = async (params) => {
    w.messages.push(params);
    return {};
  };
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: first.args });
    void bridge.sendToolResult(first.result as never);
  };
  const view = frame.contentWindow as Window;
  await bridge.connect(new PostMessageTransport(view, view));
  w.bridge = bridge;
  frame.srcdoc = html;
};

w.setTheme = (theme) => w.bridge?.setHostContext({ theme, displayMode: 'inline' });

/** Posts a message to the view from the intruder frame, or from this (the parent) window. */
w.forge = (message, from) => {
  const view = (document.getElementById('view') as HTMLIFrameElement).contentWindow as Window;
  const intruder = (document.getElementById('intruder') as HTMLIFrameElement).contentWindow as Window & {
    send(target: Window, message: unknown): void;
  };
  if (from === 'parent') view.postMessage(message, '*');
  else intruder.send(view, message);
};
