import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Deepest JSON a request body may hold (arrays and objects); deeper is refused before parsing. */
export const MAX_JSON_DEPTH = 64;

/** A request refused while its body was read: the status and the JSON-RPC message the agent gets. */
export class BodyRefusal extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Bytes of the body as read off the wire (not what Content-Length said). */
    bodyBytes?: number;
  }
  interface FastifyContextConfig {
    /**
     * The route may read bodies past `mcpLimit` (store_homework_file carries files): such a large
     * body takes its size from the edge's shared budget for large bodies while it is read.
     */
    largeBodies?: { mcpLimit: number };
  }
}

export interface BodyBoundsOptions {
  /** Whole request (headers and body) must arrive within this, ms (node's requestTimeout). */
  requestTimeoutMs: number;
  /** Headers must arrive within this, ms (node's headersTimeout). */
  headersTimeoutMs: number;
  /** A body that sends no byte for this long is cut off, ms (a slow trickle). */
  bodyIdleMs: number;
  /** Bytes of large (upload) bodies the edge reads at the same time, all callers together. */
  largeBodyBudget: number;
}

/**
 * Where the first `[`/`{` nests deeper than `max` outside strings, the depth reached; else 0.
 * A linear scan of the bytes: cheap next to JSON.parse, and it keeps a 5,000-deep body away from
 * the recursive validators (zod, the SDK), which would overflow the stack.
 */
export function jsonTooDeep(body: Buffer, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * Bounds every request the edge reads, whatever its framing (Content-Length or chunked):
 * - headers and the whole request have deadlines (node's headersTimeout and requestTimeout), and a
 *   body that stops sending for `bodyIdleMs` loses its connection (on every route, /oauth included);
 * - JSON bodies are counted as they arrive and refused at the route's limit, refused when nested
 *   deeper than {@link MAX_JSON_DEPTH}, and large upload bodies share one budget;
 * - a request answered before its body was read (401, 413) gets `Connection: close` and its
 *   connection is closed, instead of node reading the rest of the body to reuse it.
 */
// biome-ignore lint/suspicious/noExplicitAny: any logger and server flavour of fastify
export function installBodyBounds(app: FastifyInstance<any, any, any, any>, options: BodyBoundsOptions): void {
  app.server.requestTimeout = options.requestTimeoutMs;
  app.server.headersTimeout = Math.min(options.headersTimeoutMs, options.requestTimeoutMs);
  const budget = new LargeBodyBudget(options.largeBodyBudget);
  const parseJson = app.getDefaultJsonParser('error', 'error');

  app.addHook('onRequest', async (request) => {
    if (expectsBody(request.raw)) watchProgress(request.raw, options.bodyIdleMs);
  });
  app.addHook('onSend', async (request, reply) => {
    if (request.raw.complete || !expectsBody(request.raw)) return;
    reply.header('connection', 'close');
    reply.raw.once('finish', () => closeSoon(request.raw));
  });

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const limit = request.routeOptions.bodyLimit ?? 1024 * 1024;
    const large = request.routeOptions.config?.largeBodies;
    const key = request.caller?.tokenKey ?? request.ip;
    const length = Number(request.headers['content-length']);
    if (length > limit) return done(tooLarge(limit), undefined);
    let received = 0;
    let held = 0;
    const chunks: Buffer[] = [];
    const finish = (err: Error | null, body?: unknown) => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      if (held) budget.release(key, held);
      held = 0;
      done(err, body);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return finish(tooLarge(limit));
      if (large && !held && received > large.mcpLimit) {
        held = budget.take(key, limit);
        if (!held) return finish(new BodyRefusal(503, 'Сейчас сдаётся много файлов: повторите через минуту', 60));
      }
      chunks.push(chunk);
    };
    const onError = (err: Error) => finish(new BodyRefusal(400, `Тело запроса не дочитано: ${err.message}`));
    const onEnd = () => {
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received);
      chunks.length = 0;
      request.bodyBytes = received;
      if (jsonTooDeep(body)) {
        return finish(new BodyRefusal(400, `Слишком глубокая вложенность JSON: не больше ${MAX_JSON_DEPTH} уровней`));
      }
      parseJson(request, body.toString('utf8'), (err, value) => finish(err as Error | null, value));
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
  });
}

function tooLarge(limit: number) {
  return new BodyRefusal(413, `Запрос слишком большой: не больше ${Math.floor(limit / 1024)} КБ`);
}

function expectsBody(req: IncomingMessage): boolean {
  return Boolean(req.headers['transfer-encoding']) || Number(req.headers['content-length'] ?? 0) > 0;
}

/** Cuts the connection of a body that stops arriving (counted on the socket, so nothing is consumed here). */
function watchProgress(req: IncomingMessage, idleMs: number): void {
  const socket = req.socket;
  let last = socket.bytesRead;
  const check = () => {
    if (req.complete || socket.destroyed) return;
    if (socket.bytesRead === last) {
      socket.destroy();
      return;
    }
    last = socket.bytesRead;
    setTimeout(check, idleMs).unref();
  };
  setTimeout(check, idleMs).unref();
}

/**
 * After a reply to a request whose body was not read: node would read the rest to reuse the
 * connection. The reader is stopped and the connection closed a moment later (at once would reset
 * it before the client reads the reply).
 */
function closeSoon(req: IncomingMessage): void {
  const socket = req.socket;
  socket.pause();
  socket.end();
  setTimeout(() => socket.destroy(), 250).unref();
}

/**
 * Large bodies being read, in bytes, shared by every caller: an upload holds its route's limit
 * while it is read, a caller reads one large body at a time, and none is read past the budget, so
 * the edge's memory stays bounded however many clients send big bodies at once.
 */
class LargeBodyBudget {
  private used = 0;
  private readonly holders = new Set<string>();

  constructor(private readonly total: number) {}

  /** The bytes held (0: refused). */
  take(key: string, bytes: number): number {
    if (this.holders.has(key) || this.used + bytes > this.total) return 0;
    this.used += bytes;
    this.holders.add(key);
    return bytes;
  }

  release(key: string, bytes: number): void {
    this.used -= bytes;
    this.holders.delete(key);
  }
}

/** The refusal of a body as the JSON-RPC error the MCP endpoints answer with. */
export function bodyRefusalReply(error: BodyRefusal, reply: FastifyReply) {
  if (error.retryAfter) reply.header('retry-after', String(error.retryAfter));
  return reply.code(error.statusCode).send({
    jsonrpc: '2.0',
    id: null,
    error: { code: error.statusCode === 400 ? -32700 : -32600, message: error.message },
  });
}
