// Browser code shared by the MCP Apps views (bundled into each by scripts/build-views.ts).
import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps';

/**
 * Connects a view to its host with the ext-apps `App` class: the handshake, JSON-RPC over
 * postMessage with the parent frame only (messages from any other window are dropped by its
 * transport), the view's size reported on every change (`autoResize`: size-changed), and the
 * host's theme and style variables followed at start and on every host-context-changed.
 * `setup` sets the view's handlers before the handshake: the host sends the tool's input and
 * result right after it.
 */
export async function openView(name: string, setup: (app: App) => void): Promise<App> {
  const app = new App({ name: `studium-${name}`, version: '1.0.0' }, {}, { autoResize: true });
  const follow = (context: Partial<McpUiHostContext> | undefined) => {
    if (context?.theme === 'light' || context?.theme === 'dark') applyDocumentTheme(context.theme);
    if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  };
  app.onhostcontextchanged = follow;
  setup(app);
  await app.connect();
  follow(app.getHostContext());
  return app;
}

/** The element with this id (the views' pages always have it). */
export const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** A new element with a class and text. */
export function el(tag: string, cls?: string | null, text?: string): HTMLElement {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** `{ ok, data }` of a tool result's structuredContent, or null. */
export function okData<T>(result: { structuredContent?: unknown } | undefined): T | null {
  const sc = result?.structuredContent as { ok?: boolean; data?: T } | undefined;
  return sc?.ok && sc.data ? sc.data : null;
}
