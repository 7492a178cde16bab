import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
    largeBodies?: { mcpLimit: number; tool: string };
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
  /** Whether a caller may start one more large body now (uploads per token per minute). */
  largeBodyGate?: (key: string) => Promise<{ allowed: true } | { allowed: false; retryAfter: number }>;
  /**
   * Seconds an authenticated caller is known to stay over its rate limit (0: not known to be): a
   * body past {@link RATE_CHECK_BYTES} from such a caller is refused (429) before it is read.
   */
  overLimit?: (key: string) => number;
  /** The refusal's message for {@link overLimit} (the spec's 429 phrase). */
  overLimitMessage?: string;
}

/**
 * From this size on, a body of a caller over its rate limit is refused unread: its call would be
 * refused anyway, after its bytes were read and parsed (~30 µs a KB). Smaller calls are read, so
 * a tool call over the limit keeps its in-band `rate_limited` refusal; so are the bodies of a
 * route that takes uploads (/mcp), whose refusal the upload window shows.
 */
export const RATE_CHECK_BYTES = 64 * 1024;

/**
 * Where the first `[`/`{` nests deeper than `max` outside strings, the depth reached; else 0.
 * A linear scan of the bytes: cheap next to JSON.parse, and it keeps a 5,000-deep body away from
 * the recursive validators (zod, the SDK), which would overflow the stack.
 */
export function jsonTooDeep(body: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
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
 *   connection is closed after a short linger, instead of node reading the rest of the body to
 *   reuse it.
 */
// biome-ignore lint/suspicious/noExplicitAny: any logger and server flavour of fastify
export function installBodyBounds(app: FastifyInstance<any, any, any, any>, options: BodyBoundsOptions): void {
  app.server.requestTimeout = options.requestTimeoutMs;
  app.server.headersTimeout = Math.min(options.headersTimeoutMs, options.requestTimeoutMs);
  const budget = new LargeBodyBudget(options.largeBodyBudget);
  const parseJson = app.getDefaultJsonParser('error', 'error');

  app.addHook('onRequest', async (request, reply) => {
    if (expectsBody(request.raw)) watchProgress(request.raw, reply.raw, options.bodyIdleMs, options.requestTimeoutMs);
  });
  app.addHook('onSend', async (request, reply) => {
    if (request.raw.complete || !expectsBody(request.raw)) return;
    reply.header('connection', 'close');
    const socket = request.raw.socket;
    // Node closes a `Connection: close` socket as soon as the reply is written; with the client's
    // body still arriving, that close is a reset, which can destroy the reply before the client
    // reads it. The connection lingers instead (see linger).
    socket.destroySoon = () => socket.end();
    reply.raw.once('finish', () => linger(socket));
  });

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const limit = request.routeOptions.bodyLimit ?? 1024 * 1024;
    const large = request.routeOptions.config?.largeBodies;
    const key = request.caller?.tokenKey ?? request.ip;
    const length = Number(request.headers['content-length']);
    if (length > limit) return done(tooLarge(limit), undefined);
    // Not on a route that takes uploads (/mcp): a large call there may be store_homework_file,
    // whose refusal over the limit is in band, in the upload window.
    const overLimit = () => {
      const wait = request.caller && options.overLimit && !large ? options.overLimit(request.caller.tokenKey) : 0;
      return wait ? new BodyRefusal(429, options.overLimitMessage ?? 'Too many requests', wait) : null;
    };
    if (length > RATE_CHECK_BYTES) {
      const refused = overLimit();
      if (refused) return done(refused, undefined);
    }
    let rateChecked = length > RATE_CHECK_BYTES;
    let received = 0;
    let held = 0;
    // Kept as the socket's buffers (outside the JS heap) and decoded once at the end; an upload
    // route also watches for the upload tool's name, so a large body without it is never decoded.
    let chunks: Buffer[] = [];
    const name = large ? Buffer.from(large.tool) : null;
    let named = false;
    let tail: Buffer = Buffer.alloc(0);
    const finish = (err: Error | null, body?: unknown) => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      if (held) budget.release(key, held);
      held = 0;
      chunks = [];
      done(err, body);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return finish(tooLarge(limit));
      if (!rateChecked && received > RATE_CHECK_BYTES) {
        rateChecked = true;
        const refused = overLimit();
        if (refused) return finish(refused);
      }
      if (large && !held && received > large.mcpLimit) {
        held = budget.take(key, limit);
        if (!held) return finish(new BodyRefusal(503, 'Сейчас сдаётся много файлов: повторите через минуту', 60));
        if (options.largeBodyGate) {
          // Reading stops until the caller's upload count says whether it may go on.
          payload.pause();
          options.largeBodyGate(key).then(
            (gate) => {
              if (gate.allowed) payload.resume();
              else
                finish(new BodyRefusal(429, 'Слишком много загрузок файлов, попробуйте чуть позже', gate.retryAfter));
            },
            () => payload.resume(),
          );
        }
      }
      if (name && !named) {
        named = Buffer.concat([tail, chunk]).includes(name);
        tail = chunk.subarray(Math.max(0, chunk.length - name.length + 1));
      }
      chunks.push(chunk);
    };
    const onError = (err: Error) => finish(new BodyRefusal(400, `Тело запроса не дочитано: ${err.message}`));
    const onEnd = () => {
      request.bodyBytes = received;
      // Past the MCP limit only the call that carries files may go on: one without that name
      // anywhere in it is refused before it is decoded or parsed.
      if (large && received > large.mcpLimit && !named) return finish(tooLarge(large.mcpLimit));
      const whole = Buffer.concat(chunks, received);
      chunks = [];
      const body = whole.toString('utf8');
      if (jsonTooDeep(body)) {
        return finish(new BodyRefusal(400, `Слишком глубокая вложенность JSON: не больше ${MAX_JSON_DEPTH} уровней`));
      }
      parseJson(request, body, (err, value) => finish(err as Error | null, value));
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

/** What a client whose body did not arrive in time reads (RFC 9110 §15.5.9), as a JSON-RPC error. */
export const BODY_TIMEOUT_MESSAGE = 'Тело запроса не пришло вовремя: отправьте запрос заново';

/**
 * Ends a request whose body stops arriving for `idleMs`, or is still arriving `totalMs` after the
 * request began (counted on the socket, so nothing is consumed here): with HTTP 408 and
 * `Connection: close` when nothing has been answered yet, then a lingering close (the client
 * reads the 408 instead of a reset); a request already being answered just loses its connection.
 */
function watchProgress(req: IncomingMessage, res: ServerResponse, idleMs: number, totalMs: number): void {
  const socket = req.socket;
  const deadline = Date.now() + totalMs;
  let last = socket.bytesRead;
  const next = () => setTimeout(check, Math.max(1, Math.min(idleMs, deadline - Date.now()))).unref();
  const check = () => {
    if (req.complete || socket.destroyed) return;
    if (socket.bytesRead === last || Date.now() >= deadline) {
      if (res.headersSent || res.writableEnded) return void socket.destroy();
      const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: BODY_TIMEOUT_MESSAGE } });
      socket.destroySoon = () => socket.end();
      res.once('finish', () => linger(socket));
      res.writeHead(408, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        connection: 'close',
      });
      res.end(body);
      return;
    }
    last = socket.bytesRead;
    next();
  };
  next();
}

/** How long, and how many bytes, a refused request's connection is read and discarded before it is closed. */
const LINGER_MS = 1000;
const LINGER_BYTES = 512 * 1024;

/**
 * After a reply to a request whose body was not read (a lingering close, as web servers do): the
 * reply and a FIN have gone out; what the client still sends is discarded (node reads it into the
 * void), at most LINGER_BYTES or LINGER_MS, and then the connection is closed. Nothing is kept.
 */
function linger(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  // Not read any more: the client's window fills and it stops sending (it can still read the
  // reply). After node's own handler of the reply's end, which resumes reading to drain the body.
  setImmediate(() => socket.pause());
  const start = socket.bytesRead;
  const until = Date.now() + LINGER_MS;
  const check = () => {
    if (socket.destroyed) return;
    if (socket.bytesRead - start > LINGER_BYTES || Date.now() >= until) socket.destroy();
    else setTimeout(check, 20).unref();
  };
  setTimeout(check, 20).unref();
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
  // A rate refusal as the MCP endpoints give it for any other message (app.ts, refuseEarly).
  const rpc =
    error.statusCode === 429
      ? { code: -32000, message: error.message, data: { retry_after: error.retryAfter } }
      : { code: error.statusCode === 400 ? -32700 : -32600, message: error.message };
  return reply.code(error.statusCode).send({ jsonrpc: '2.0', id: null, error: rpc });
}
