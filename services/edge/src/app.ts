import { createServer, type Server } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { LIMITS, phraseFor, store_homework_file } from '@studium/contracts';
import type { Bus, Logger } from '@studium/platform';
import { DEV_FILE_URL_SECRET, ReplyCache, runChecks } from '@studium/platform';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { AuditLog, type EdgeDb } from './audit.ts';
import { Authenticator } from './auth.ts';
import { BodyRefusal, bodyRefusalReply, installBodyBounds } from './body.ts';
import { cabinetApp } from './cabinet/routes.ts';
import { registerChatRoutes } from './chat/routes.ts';
import { capabilitiesSupportUi } from './choose.ts';
import type { EdgeConfig } from './config.ts';
import { fileDownload, HomeworkFiles } from './homework-files.ts';
import { createSurfaceHandler, SURFACES, type SurfacePath } from './mcp.ts';
import { createEdgeMetrics } from './metrics.ts';
import { setupOAuth } from './oauth/index.ts';
import { isOAuthPath } from './oauth/routes.ts';
import { RateLimiter } from './rate-limit.ts';
import { studentApp } from './student/routes.ts';
import { authorGate, refuseNonAuthor, rpcFailure, scopeChallenge, surfaceAuth } from './surface-auth.ts';
import type { Caller } from './tools.ts';
import { registerTutorRoutes } from './tutor/routes.ts';
import { setupWeb } from './web/index.ts';

// Schema messages reach agents and students: Russian, like every user-facing text.
z.config(z.locales.ru());

export interface EdgeDeps {
  bus: Bus;
  db: Kysely<EdgeDb>;
  redis: Redis;
  log: Logger;
  config: EdgeConfig;
}

/** Builds the edge's fastify app (main.ts listens; tests inject or listen on port 0). */
export async function buildApp(deps: EdgeDeps) {
  const { bus, redis, config } = deps;
  // A kept list takes about five times its wire size in memory: the parsed reply, its text
  // content and their encoded bytes (measured on the 200-course bench catalog).
  const replies = new ReplyCache(config.REPLY_CACHE_MB * 1024 * 1024, 5);
  const auditLimiter = new RateLimiter(redis, config.AUDIT_PER_MINUTE, `${config.SUBJECT_PREFIX}:audit`);
  const audit = new AuditLog(deps.db, deps.log, auditLimiter);
  const metrics = createEdgeMetrics(replies, audit);
  const oauth = config.OAUTH_ENABLED ? await setupOAuth(deps, Object.keys(SURFACES)) : null;
  const auth = new Authenticator(
    bus,
    {
      ttlMs: config.AUTH_CACHE_TTL_MS,
      maxEntries: config.AUTH_CACHE_MAX_ENTRIES,
      negativeTtlMs: config.AUTH_NEGATIVE_TTL_MS,
    },
    oauth?.findToken,
  );
  auth.start();
  const limiter = new RateLimiter(redis, config.RATE_LIMIT_PER_MINUTE, config.SUBJECT_PREFIX);
  // Bodies past the MCP limit (uploads) per token per minute: each costs up to ~55 MB of reading.
  const uploadLimiter = new RateLimiter(redis, config.UPLOADS_PER_MINUTE, `${config.SUBJECT_PREFIX}:upload`, 60_000, 1);
  const uiKey = (caller: Caller) => `${config.SUBJECT_PREFIX}:ui:${caller.tokenKey}`;
  // Stateless 2025-era clients send their capabilities only at initialize: remember them per token.
  const uiFromInitialize = async (caller: Caller) => (await redis.get(uiKey(caller)).catch(() => null)) === '1';
  // main.ts refuses a missing or weak key outside development (checkFileUrlSecret).
  const files = new HomeworkFiles(bus.nc, config.SUBJECT_PREFIX, config.FILE_URL_SECRET ?? DEV_FILE_URL_SECRET);
  const callDeps = { bus, limiter, audit, metrics, replies, log: deps.log, files };
  const handlers = Object.fromEntries(
    (Object.keys(SURFACES) as SurfacePath[]).map((p) => [p, createSurfaceHandler(p, callDeps, uiFromInitialize)]),
  ) as Record<SurfacePath, ReturnType<typeof createSurfaceHandler>>;

  // Routes that take larger bodies set their own bodyLimit; the MCP endpoints take tool calls.
  // While closing, new requests get the spec's 5xx phrase (below), not fastify's English 503.
  const app = Fastify({
    loggerInstance: deps.log,
    bodyLimit: 1024 * 1024,
    trustProxy: config.TRUST_PROXY,
    return503OnClosing: false,
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    // Node checks the header and request deadlines this often (30 s by default: a deadline of
    // 10 s would hold a slow client for up to 40 s).
    http: { connectionsCheckingInterval: 1000 },
  });
  installBodyBounds(app, {
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    bodyIdleMs: config.HTTP_BODY_IDLE_MS,
    largeBodyBudget: config.UPLOAD_BODIES_MB * 1024 * 1024,
    largeBodyGate: (key) => uploadLimiter.check(key),
  });
  app.setErrorHandler((error: FastifyError, request, reply) =>
    // A non-author's body that did not parse is still the author-role violation, not a parse error.
    request.authorRefused && request.caller
      ? refuseNonAuthor(request.caller.endpoint, { audit, metrics }, request, reply)
      : edgeErrorHandler(error, request, reply),
  );
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    return reply
      .code(503)
      .header('connection', 'close')
      .send(rpcFailure(phraseFor(503)));
  });
  // Per-request access logs would cost more than the calls they describe; metrics count them.
  app.addHook('onRoute', (route) => {
    route.logLevel = 'warn';
  });
  const allowedHosts = new Set(config.ALLOWED_HOSTS.map((h) => h.toLowerCase()));
  const allowedOrigins = new Set(config.ALLOWED_ORIGINS.map((o) => o.toLowerCase()));

  app.addHook('onRequest', async (request, reply) => {
    // DNS-rebinding protection: the Host must be one we serve; a browser Origin must be allowed.
    const host = hostname(request.headers.host);
    if (!host || !allowedHosts.has(host)) return reply.code(403).send({ error: 'host not allowed' });
    const origin = request.headers.origin;
    if (origin && !isOAuthPath(request.url) && !allowedOrigins.has(originBase(origin)))
      return reply.code(403).send({ error: 'origin not allowed' });
  });

  if (oauth) await oauth.register(app, audit);

  /**
   * What is refused before the MCP layer: a batch over MCP_BATCH_MAX; any message but tools/call
   * over the rate limit (tools/call counts in callTool, before its arguments are checked, so that
   * it keeps the in-band rate_limited refusal), each message of a batch counted; a call of a tool
   * the endpoint does not have (MCP: JSON-RPC −32602 «Unknown tool»).
   */
  const refuseEarly = async (body: unknown, tokenKey: string, tools: readonly { name: string }[]) => {
    const messages = (Array.isArray(body) ? body : [body]) as Array<
      { id?: unknown; method?: unknown; params?: { name?: unknown } } | undefined
    >;
    const single = Array.isArray(body) ? undefined : messages[0];
    const id = typeof single?.id === 'string' || typeof single?.id === 'number' ? single.id : null;
    if (messages.length > config.MCP_BATCH_MAX) {
      const message = `Invalid Request: в пакете не больше ${config.MCP_BATCH_MAX} сообщений`;
      return { status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message } } };
    }
    for (const m of messages) {
      // choose is the edge's own tool: it never reaches callTool, so it is counted here.
      if (m?.method === 'tools/call' && m.params?.name !== 'choose') continue;
      const rate = await limiter.check(tokenKey);
      if (!rate.allowed) {
        const error = { code: -32000, message: phraseFor(429), data: { retry_after: rate.retryAfter } };
        return { status: 429, retryAfter: rate.retryAfter, body: { jsonrpc: '2.0', id, error } };
      }
    }
    const name = single?.method === 'tools/call' ? single.params?.name : undefined;
    if (name !== undefined && !tools.some((t) => t.name === name)) {
      const shown = typeof name === 'string' ? name.slice(0, 64) : JSON.stringify(name)?.slice(0, 64);
      return { status: 200, body: { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${shown}` } } };
    }
    return null;
  };

  for (const path of Object.keys(SURFACES) as SurfacePath[]) {
    const authDeps = { auth, audit, metrics, oauth: oauth?.endpoint(path) };
    const serve = async (request: FastifyRequest, reply: FastifyReply) => {
      if (await scopeChallenge(authDeps, SURFACES[path].tools, request, reply)) return;
      const caller = request.caller as Caller;
      const { principal, tokenKey } = caller;
      const early = await refuseEarly(request.body, tokenKey, SURFACES[path].tools);
      if (early) {
        if (early.retryAfter) reply.header('retry-after', String(early.retryAfter));
        return reply.code(early.status).send(early.body);
      }
      const body = request.body as { method?: string; params?: { capabilities?: unknown; name?: unknown } } | undefined;
      const onlyTool =
        body?.method === 'tools/call' && typeof body.params?.name === 'string' ? body.params.name : undefined;
      if (body?.method === 'initialize') {
        await redis
          .set(uiKey(caller), capabilitiesSupportUi(body.params?.capabilities) ? '1' : '0', 'EX', 7 * 86_400)
          .catch(() => {});
      }
      reply.hijack();
      const raw = request.raw as typeof request.raw & { auth?: AuthInfo };
      raw.auth = { token: tokenKey, clientId: principal.user, scopes: [principal.scope], extra: { caller, onlyTool } };
      await handlers[path].node(raw, reply.raw, request.body);
    };
    const limit = config.MCP_BODY_LIMIT_KB * 1024;
    // The homework window's store_homework_file carries the files themselves (base64): its surface
    // reads bodies up to the upload's size, and refuses any other call over the MCP limit once the
    // body says which call it is (only an authenticated caller gets that far).
    const uploads = SURFACES[path].tools.some((t) => t.name === store_homework_file.name);
    const options = {
      onRequest: surfaceAuth(path, authDeps, path === '/authoring'),
      bodyLimit: uploads ? Math.max(limit, UPLOAD_BODY_LIMIT) : limit,
      config: uploads ? { largeBodies: { mcpLimit: limit, tool: store_homework_file.name } } : {},
      preHandler: !uploads
        ? path === '/authoring'
          ? authorGate(path, authDeps)
          : undefined
        : async (request: FastifyRequest, reply: FastifyReply) => {
            // The bytes read, not Content-Length: a chunked body has none.
            if ((request.bodyBytes ?? 0) <= limit) return;
            const body = request.body as { method?: string; params?: { name?: unknown } } | undefined;
            if (body?.method === 'tools/call' && body.params?.name === store_homework_file.name) return;
            request.log.warn({ reqId: request.id, status: 413 }, 'request refused: body over the MCP limit');
            return reply.code(413).send({
              jsonrpc: '2.0',
              id: null,
              error: { code: -32600, message: `Запрос слишком большой: не больше ${config.MCP_BODY_LIMIT_KB} КБ` },
            });
          },
    };
    app.post(path, options, serve);
    app.get(path, options, serve);
    app.delete(path, options, serve);
  }

  app.get('/files/:object', fileDownload(files));
  // The teacher's AI chat (spec 001): /v1/ai-chat/* and its page at /chat.
  await registerChatRoutes(app, {
    bus,
    auth,
    limiter,
    registry: metrics.registry,
    log: deps.log,
    timing: { aliveMs: config.AI_CHAT_ALIVE_MS, stallMs: config.AI_CHAT_STALL_MS, keepAliveMs: 15_000 },
  });

  // The platform's web pages (DESIGN "Running"): one session sign-in, one folder per app.
  const web = await setupWeb(app, {
    bus,
    db: deps.db as never,
    redis,
    log: deps.log,
    config,
    audit,
    call: callDeps,
    files,
    uploadBodyLimit: UPLOAD_BODY_LIMIT,
  });
  await web.registerApp(studentApp());
  await web.registerApp(cabinetApp());

  // The platform's tutor (issue 23): /v1/tutor/* and its page at /tutor, signed in by the web
  // session (or an API token, as /mcp).
  await registerTutorRoutes(app, {
    call: callDeps,
    auth,
    web: web.auth,
    registry: metrics.registry,
    timing: { aliveMs: config.AI_CHAT_ALIVE_MS, stallMs: config.AI_CHAT_STALL_MS, keepAliveMs: 15_000 },
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    // Without Redis the edge still serves every call (rate limits let calls through, the MCP Apps
    // flag defaults off): it is reported, not a reason to take the edge out of rotation.
    const degraded = await runChecks({ redis: () => redis.ping() });
    const failed = await runChecks({
      nats: () => bus.nc.flush(),
      postgres: () =>
        deps.db
          .selectFrom('audit_log')
          .select('id' as never)
          .limit(1)
          .execute(),
    });
    return reply
      .code(failed.length ? 503 : 200)
      .send({ status: failed.length ? 'unavailable' : 'ok', failed, degraded });
  });
  app.get('/metrics', async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  // Prometheus scrapes pod IPs with whatever Host it likes: a port of its own, outside the Host
  // allow-list, that the Service behind the Ingress does not expose.
  let scrape: Server | null = null;

  app.addHook('onClose', async () => {
    scrape?.close();
    auth.stop();
    oauth?.stop();
    await Promise.all(Object.values(handlers).map((h) => h.handler.close()));
  });
  if (config.METRICS_PORT) {
    // A port that cannot be had (taken, not allowed) is a start-up error like any other setting.
    scrape = await startMetricsServer(config.METRICS_PORT, metrics.registry).catch(async (err) => {
      await app.close();
      throw new Error(`METRICS_PORT ${config.METRICS_PORT}: ${(err as Error).message}`);
    });
  }
  return app;
}

/** A plain HTTP server answering GET /metrics only (any Host). */
function startMetricsServer(port: number, registry: Registry): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') return void res.writeHead(404).end();
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      // A collector that throws is a failed scrape, never an unhandled rejection.
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function hostname(host: string | undefined): string | null {
  if (!host) return null;
  const h = host.toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  return h.split(':')[0] ?? null;
}

function originBase(origin: string): string {
  try {
    const u = new URL(origin);
    return `${u.protocol}//${u.hostname}`.toLowerCase();
  } catch {
    return origin.toLowerCase();
  }
}

/**
 * The largest store_homework_file call the edge reads: a batch of new files up to one file over the
 * batch limit, in base64, and the JSON around it — so a batch somewhat too large still reaches the
 * service and gets the spec's answer_too_large; a far larger body is HTTP 413.
 */
export const UPLOAD_BODY_LIMIT =
  Math.ceil(((LIMITS.homeworkBatchBytes + LIMITS.homeworkFileBytes) * 4) / 3) + 1024 * 1024;

/**
 * Errors fastify raises itself (a body over the route's limit, malformed JSON) and any a handler
 * throws: logged with the request id, answered as a JSON-RPC error without internals.
 */
function edgeErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof BodyRefusal) {
    request.log.warn({ reqId: request.id, status: error.statusCode, reason: error.message }, 'request refused');
    return bodyRefusalReply(error, reply);
  }
  const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
  if (status >= 500) request.log.error({ err: error, reqId: request.id }, 'request failed');
  else request.log.warn({ err: error, reqId: request.id, status }, 'request refused');
  const [code, message] =
    status === 413
      ? [-32600, `Запрос слишком большой: не больше ${Math.floor((request.routeOptions.bodyLimit ?? 0) / 1024)} КБ`]
      : status === 415
        ? [-32600, 'Unsupported Media Type: Content-Type must be application/json']
        : status < 500
          ? [-32700, 'Parse error: тело запроса — не JSON']
          : [-32603, phraseFor(503)];
  return reply.code(status).send({ jsonrpc: '2.0', id: null, error: { code, message } });
}
