import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type McpServerFactory,
  type TransportSendOptions,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { encodeReply } from './reply-json.ts';

/**
 * The SDK's stateless transport in JSON-response mode, which hands the reply to a single request
 * to `onReply` as a message instead of building a web Response from it: the edge serializes it
 * (see {@link encodeReply}) and writes it to the socket itself. Everything before the reply —
 * Accept, JSON-RPC and protocol-version checks, notifications answered 202 — stays the SDK's.
 */
class JsonReplyTransport extends WebStandardStreamableHTTPServerTransport {
  constructor(private readonly onReply: ((message: JSONRPCMessage) => void) | undefined) {
    super({ sessionIdGenerator: undefined, enableJsonResponse: true });
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.onReply && (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message))) {
      this.onReply(message);
      return;
    }
    return super.send(message, options);
  }
}

/**
 * Serves one 2025-era (legacy) exchange statelessly, like the SDK's own fallback (a fresh server
 * from the factory per request, GET/DELETE answered 405), but with a plain JSON response instead
 * of an SSE stream, written in one piece. Our tools send nothing before their result, so an SSE
 * stream would carry nothing more.
 */
export async function serveLegacyJson(
  factory: McpServerFactory,
  request: Request,
  res: ServerResponse,
  parsedBody: unknown,
  authInfo: AuthInfo | undefined,
  onError: (err: unknown) => void = () => {},
): Promise<void> {
  if (request.method !== 'POST') {
    return writeJson(res, 405, JSON.stringify(rpcError(-32000, 'Method not allowed.', null)), { allow: 'POST' });
  }
  // A batch is answered by the SDK transport as a whole; a single request's reply is ours to write.
  let onReply: ((message: JSONRPCMessage) => void) | undefined;
  const replied = isJSONRPCRequest(parsedBody)
    ? new Promise<JSONRPCMessage>((resolve) => {
        onReply = resolve;
      })
    : undefined;
  const transport = new JsonReplyTransport(onReply);
  let server: Awaited<ReturnType<McpServerFactory>> | undefined;
  try {
    server = await factory({ era: 'legacy', authInfo, requestInfo: request });
    await server.connect(transport);
    const handled = transport.handleRequest(request, { authInfo, parsedBody });
    // Once the reply is in, the SDK's own response promise is left pending; it must not reject unseen.
    handled.catch(() => {});
    const outcome = await (replied ? Promise.race([handled, replied]) : handled);
    if (!(outcome instanceof Response)) return writeJson(res, 200, encodeReply(outcome));
    const headers: Record<string, string> = {};
    outcome.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = outcome.body ? Buffer.from(await outcome.arrayBuffer()) : undefined;
    if (body) headers['content-length'] = String(body.byteLength);
    res.writeHead(outcome.status, headers).end(body);
  } catch (err) {
    onError(err);
    writeInternalError(res, parsedBody);
  } finally {
    closeWithoutStacks(transport, server);
  }
}

/**
 * Closes the one-request server and its transport. At every close the SDK builds a "Connection
 * closed" error for the requests still in flight, with a stack trace, though after the reply none
 * is left to hear it: the lesson-loop bench's CPU profile showed these errors at 1–2 % of the
 * edge's busy time. The close runs synchronously up to that error, so the stack is skipped for
 * its length only; a handler still waiting (a failed exchange) gets the same error, without the stack.
 */
function closeWithoutStacks(transport: JsonReplyTransport, server: { close(): Promise<void> } | undefined): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    transport.close().catch(() => {});
    server?.close().catch(() => {});
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Answers 500 with the JSON-RPC internal error, echoing the request's id when it has one. */
export function writeInternalError(res: ServerResponse, parsedBody: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const id = (parsedBody as { id?: unknown } | undefined)?.id;
  const echo = typeof id === 'string' || typeof id === 'number' ? id : null;
  writeJson(res, 500, JSON.stringify(rpcError(-32603, 'Internal server error', echo)));
}

/** A web Request with a Node request's method, URL and headers; the body travels parsed beside it. */
export function headersOnlyRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method, headers });
}

/** A JSON-RPC error response. */
export function rpcError(code: number, message: string, id: string | number | null) {
  return { jsonrpc: '2.0', error: { code, message }, id };
}

/**
 * Writes a JSON response: headers and body chunks are corked and leave in one write (one syscall),
 * with a Content-Length instead of chunked encoding.
 */
export function writeJson(
  res: ServerResponse,
  status: number,
  json: string | Buffer[],
  headers: Record<string, string> = {},
): void {
  const chunks = typeof json === 'string' ? [Buffer.from(json)] : json;
  let length = 0;
  for (const c of chunks) length += c.byteLength;
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': String(length) });
  res.cork();
  for (let i = 0; i < chunks.length - 1; i++) res.write(chunks[i]);
  res.end(chunks[chunks.length - 1]);
}
