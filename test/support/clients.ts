import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The part of an MCP client the tests use, the same for SDK 1.x and 2.x. */
export interface AgentClient {
  listTools(): Promise<{ tools: Array<{ name: string; description?: string; annotations?: Record<string, unknown> }> }>;
  callTool(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

export interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

export type SdkVersion = 'v1' | 'v2';

/** Connects an SDK client over Streamable HTTP with a bearer token, as an agent would. */
export async function connectAgent(
  version: SdkVersion,
  url: string,
  token: string,
  capabilities: Record<string, unknown> = {},
): Promise<AgentClient> {
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  if (version === 'v1') {
    const client = new ClientV1({ name: 'test-agent-v1', version: '1.0.0' }, { capabilities });
    await client.connect(new TransportV1(new URL(url), { requestInit }));
    return wrap(client as unknown as RawClient);
  }
  const client = new ClientV2({ name: 'test-agent-v2', version: '2.0.0' }, { capabilities } as never);
  await client.connect(new TransportV2(new URL(url), { requestInit }));
  return wrap(client as unknown as RawClient);
}

interface RawClient {
  listTools(): ReturnType<AgentClient['listTools']>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

function wrap(client: RawClient): AgentClient {
  return {
    listTools: () => client.listTools(),
    callTool: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}

/** Text of the first content block. */
export function text(result: ToolResult): string {
  return result.content.find((c) => c.type === 'text')?.text ?? '';
}

/** `data` of a successful tool result's structuredContent (`{ ok: true, data }`). */
export function data(result: ToolResult): Record<string, unknown> {
  const sc = result.structuredContent as { ok?: boolean; data?: Record<string, unknown> } | undefined;
  if (!sc?.ok) throw new Error(`not a successful result: ${text(result)}`);
  return sc.data ?? {};
}
