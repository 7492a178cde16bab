import { createServer, type Server } from 'node:http';
import { phraseFor } from '@studium/contracts';
import type { Bus, Logger } from '@studium/platform';
import { DEV_FILE_URL_SECRET, liveness, probe, ReplyCache, runChecks } from '@studium/platform';
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
import type { EdgeConfig } from './config.ts';
import { SURFACES } from './mcp/endpoint.ts';
import { fileDownload, HomeworkFiles } from './mcp/homework-store.ts';
import { registerMcpEndpoints, UPLOAD_BODY_LIMIT } from './mcp/routes.ts';
import { refuseNonAuthor, rpcFailure } from './mcp/surface-auth.ts';
import { createEdgeMetrics } from './metrics.ts';
import { setupOAuth } from './oauth/index.ts';
import { isOAuthPath } from './oauth/routes.ts';
import { RateLimiter } from './rate-limit.ts';
import { registerAssistants } from './student/assistants.ts';
import { studentApp } from './student/routes.ts';
import { registerTutorRoutes } from './tutor/routes.ts';
import { loadWebAssets, type WebAssets } from './web/assets.ts';
import { setupWeb } from './web/index.ts';

// Schema messages reach agents and students: Russian, like every user-facing text.
z.config(z.locales.ru());

export interface EdgeDeps {
  bus: Bus;
  db: Kysely<EdgeDb>;
  redis: Redis;
  log: Logger;
  config: EdgeConfig;
  /** The built web assets; read from the edge's assets folder when not given (main.ts checks first). */
  assets?: WebAssets;
}

/** Builds the edge's fastify app (main.ts listens; tests inject or listen on port 0). */
export async function buildApp(deps: EdgeDeps) {
  const { bus, redis, config } = deps;
  const assets = deps.assets ?? loadWebAssets();
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
  // main.ts refuses a missing or weak key outside development (checkFileUrlSecret).
  const files = new HomeworkFiles(bus.nc, config.SUBJECT_PREFIX, config.FILE_URL_SECRET ?? DEV_FILE_URL_SECRET);
  const callDeps = { bus, limiter, audit, metrics, replies, log: deps.log, files };

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
    overLimit: (key) => limiter.refusedFor(key),
    overLimitMessage: phraseFor(429),
  });
  app.setErrorHandler((error: FastifyError, request, reply) =>
    // A non-author's body that did not parse is still the author-role violation, not a parse error.
    request.authorRefused && request.caller
      ? refuseNonAuthor(request.caller.endpoint, { audit, metrics }, request, reply)
      : edgeErrorHandler(error, request, reply),
  );
  // Every answer, pages and assets included (and those written by oidc-provider or the MCP SDK on
  // the raw response): no content sniffing, and no address of ours in another site's Referer (an
  // OAuth page's URL holds the interaction, a lesson's its id). Node merges these with the headers
  // an answer sets itself.
  app.addHook('onRequest', async (_request, reply) => {
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    reply.raw.setHeader('referrer-policy', 'same-origin');
  });
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
  // Every route is also listed: the Ingress must route each one (test/ingress-routes.e2e.test.ts).
  const routeTable: EdgeRoute[] = [];
  app.addHook('onRoute', (route) => {
    route.logLevel = 'warn';
    for (const method of [route.method].flat()) routeTable.push({ method, url: route.url });
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

  // The MCP endpoints (spec 000: /mcp, /authoring; spec 004: /kb).
  const mcp = registerMcpEndpoints(app, { call: callDeps, auth, redis, config, oauth });

  app.get('/files/:object', fileDownload(files));
  // The teacher's AI chat (spec 001): /v1/ai-chat/* and its page at /chat.
  await registerChatRoutes(app, {
    bus,
    auth,
    limiter,
    registry: metrics.registry,
    log: deps.log,
    timing: { aliveMs: config.AI_CHAT_ALIVE_MS, stallMs: config.AI_CHAT_STALL_MS, keepAliveMs: 15_000 },
    assets,
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
    assets,
  });
  await web.registerApp(studentApp());
  // The student profile's «Подключённые ассистенты»: the CLI's grant operations for the session's user.
  await registerAssistants(app, { db: deps.db, bus, auth: web.auth, limiter });
  await web.registerApp(cabinetApp());

  // The platform's tutor (issue 23): /v1/tutor/* and its page at /tutor, signed in by the web
  // session (or an API token, as /mcp).
  await registerTutorRoutes(app, {
    call: callDeps,
    auth,
    web: web.auth,
    registry: metrics.registry,
    timing: { aliveMs: config.AI_CHAT_ALIVE_MS, stallMs: config.AI_CHAT_STALL_MS, keepAliveMs: 15_000 },
    assets,
  });

  const needs = {
    nats: () => bus.nc.flush(),
    postgres: () =>
      deps.db
        .selectFrom('audit_log')
        .select('id' as never)
        .limit(1)
        .execute(),
  };
  // The edge listens only once NATS and PostgreSQL answered; losing them for longer than the
  // startup budget afterwards fails /healthz too, so the replica is restarted (see `liveness`).
  const live = liveness(config.STARTUP_BUDGET_MS);
  app.get('/healthz', async (_req, reply) => {
    const p = await probe(needs, live);
    return reply.code(p.alive ? 200 : 503).send(p.health);
  });
  app.get('/readyz', async (_req, reply) => {
    // Without Redis the edge still serves every call (rate limits let calls through, the MCP Apps
    // flag defaults off): it is reported, not a reason to take the edge out of rotation.
    const [degraded, p] = await Promise.all([runChecks({ redis: () => redis.ping() }), probe(needs, live)]);
    return reply.code(p.ready.failed.length ? 503 : 200).send({ ...p.ready, degraded });
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
    await mcp.close();
  });
  if (config.METRICS_PORT) {
    // A port that cannot be had (taken, not allowed) is a start-up error like any other setting.
    scrape = await startMetricsServer(config.METRICS_PORT, metrics.registry).catch(async (err) => {
      await app.close();
      // The code stays (EADDRINUSE): a caller may choose another port.
      throw Object.assign(new Error(`METRICS_PORT ${config.METRICS_PORT}: ${(err as Error).message}`), {
        code: (err as NodeJS.ErrnoException).code,
      });
    });
  }
  ROUTE_TABLES.set(app, routeTable);
  return app;
}

/** One route of the edge: its method and fastify pattern (`/lessons/:lesson`, `/assets/*`). */
export interface EdgeRoute {
  method: string;
  url: string;
}

// Beside the app, not on it: awaiting buildApp unwraps fastify's thenable instance to its plain type.
const ROUTE_TABLES = new WeakMap<object, EdgeRoute[]>();

/** Every route an app built by buildApp registered, in order. */
export function edgeRoutes(app: object): EdgeRoute[] {
  return ROUTE_TABLES.get(app) ?? [];
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
