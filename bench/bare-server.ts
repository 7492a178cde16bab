// The yardstick: a bare SDK v2 MCP server (stateless, node:http) with one no-op tool and, when
// PAYLOAD_FILE names a tool result in JSON, a `payload` tool that returns it as it is: what a
// result of that size costs any SDK server and client, with no service behind.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const payload = process.env.PAYLOAD_FILE ? JSON.parse(readFileSync(process.env.PAYLOAD_FILE, 'utf8')) : undefined;
const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: 'bare', version: '1.0.0' });
    server.registerTool('noop', { description: 'no-op', inputSchema: z.object({}) }, async () => ({
      content: [{ type: 'text', text: '{}' }],
      structuredContent: {},
    }));
    if (payload) {
      server.registerTool('payload', { description: 'payload', inputSchema: z.object({}) }, async () => payload);
    }
    return server;
  },
  { responseMode: 'json' },
);
const node = toNodeHandler(handler);
const server = createServer((req, res) => void node(req, res));
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const addr = server.address();
  console.log(`READY ${typeof addr === 'object' && addr ? addr.port : ''}`);
});
// Exits at once: idle keep-alive connections of the bench's client would hold a graceful close open.
process.on('SIGTERM', () => process.exit(0));
