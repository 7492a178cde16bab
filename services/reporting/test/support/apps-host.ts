// Browser code of the MCP Apps host the view tests run: the ext-apps SDK's own AppBridge over
// postMessage, as a real host (Claude, VS Code…) hosts a view. Bundled by esbuild in the test and
// loaded into the host page; tools/call goes back to Node through window.callTool.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

type First = { args: Record<string, unknown>; result: unknown };
type HostWindow = Window & {
  callTool(params: string): Promise<string>;
  sizes: Array<{ width?: number; height?: number }>;
  toolCalls: number;
  bridge?: AppBridge;
  openView(html: string, first: First, theme: 'light' | 'dark'): Promise<void>;
  setTheme(theme: 'light' | 'dark'): void;
};
const w = window as unknown as HostWindow;
w.sizes = [];
w.toolCalls = 0;

w.openView = async (html, first, theme) => {
  const frame = document.getElementById('view') as HTMLIFrameElement;
  const bridge = new AppBridge(
    null,
    { name: 'test-host', version: '1.0.0' },
    { serverTools: {} },
    { hostContext: { theme, displayMode: 'inline' } },
  );
  bridge.oncalltool = async (params) => {
    w.toolCalls++;
    return JSON.parse(await w.callTool(JSON.stringify(params)));
  };
  bridge.onsizechange = (size) => {
    w.sizes.push(size);
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
