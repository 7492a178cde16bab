import { getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';

/** Whether the client renders MCP Apps: asked of this exchange first, then of what it said at initialize. */
export type UiSupport = (server: McpServer) => Promise<boolean>;

/** True when client capabilities announce MCP Apps with the HTML profile. */
export function capabilitiesSupportUi(caps: unknown): boolean {
  const ui = getUiCapability(caps as never);
  return !!ui && (!ui.mimeTypes || ui.mimeTypes.includes(RESOURCE_MIME_TYPE));
}
