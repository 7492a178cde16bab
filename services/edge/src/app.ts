import type { AuthInfo } from '@modelcontextprotocol/server';
import { isAuthor, phraseFor } from '@studium/contracts';
import type { Bus, Logger } from '@studium/platform';
import { ReplyCache, runChecks } from '@studium/platform';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { AuditLog, type EdgeDb } from './audit.ts';
import { Authenticator } from './auth.ts';
import { registerChatRoutes } from './chat/routes.ts';
import { capabilitiesSupportUi } from './choose.ts';
import type { EdgeConfig } from './config.ts';
import { createSurfaceHandler, SURFACES, type SurfacePath } from './mcp.ts';
import { createEdgeMetrics } from './metrics.ts';
import { RateLimiter } from './rate-limit.ts';
import type { Caller } from './tools.ts';

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
  const metrics = createEdgeMetrics(replies);
  const audit = new AuditLog(deps.db, deps.log);
  const auth = new Authenticator(bus, config.AUTH_CACHE_TTL_MS);
  auth.start();
  const limiter = new RateLimiter(redis, config.RATE_LIMIT_PER_MINUTE, config.SUBJECT_PREFIX);
  const uiKey = (caller: Caller) => `${config.SUBJECT_PREFIX}:ui:${caller.tokenKey}`;
  // Stateless 2025-era clients send their capabilities only at initialize: remember them per token.
  const uiFromInitialize = async (caller: Caller) => (await redis.get(uiKey(caller)).catch(() => null)) === '1';
  const callDeps = { bus, limiter, audit, metrics, replies };
  const handlers = Object.fromEntries(
    (Object.keys(SURFACES) as SurfacePath[]).map((p) => [p, createSurfaceHandler(p, callDeps, uiFromInitialize)]),
  ) as Record<SurfacePath, ReturnType<typeof createSurfaceHandler>>;

  const app = Fastify({ loggerInstance: deps.log, bodyLimit: 48 * 1024 * 1024 });
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
    if (origin && !allowedOrigins.has(originBase(origin))) return reply.code(403).send({ error: 'origin not allowed' });
  });

  for (const path of Object.keys(SURFACES) as SurfacePath[]) {
    const serve = async (request: FastifyRequest, reply: FastifyReply) => {
      const result = await auth.authenticate(request.headers.authorization);
      if (!result.ok) {
        metrics.httpRejections.labels(path, String(result.status)).inc();
        if (result.status === 401) {
          reply.header('www-authenticate', `Bearer error="invalid_token", error_description="${result.reason}"`);
        }
        return reply.code(result.status).send(jsonRpcError(request.body, phraseFor(result.status)));
      }
      const { principal, tokenKey } = result;
      if (path === '/authoring' && !isAuthor(principal.roles)) {
        metrics.httpRejections.labels(path, '403').inc();
        await audit.record({
          kind: 'author_role_required',
          user: principal.user,
          endpoint: path,
          detail: { roles: principal.roles },
        });
        return reply.code(403).send(jsonRpcError(request.body, phraseFor(403)));
      }
      const caller: Caller = { principal, tokenKey, endpoint: path };
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
    app.post(path, serve);
    app.get(path, serve);
    app.delete(path, serve);
  }

  // The teacher's AI chat (spec 001): /v1/ai-chat/* and its page at /chat.
  await registerChatRoutes(app, {
    bus,
    auth,
    limiter,
    registry: metrics.registry,
    log: deps.log,
    timing: { aliveMs: config.AI_CHAT_ALIVE_MS, stallMs: config.AI_CHAT_STALL_MS, keepAliveMs: 15_000 },
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const failed = await runChecks({
      nats: () => bus.nc.flush(),
      redis: () => redis.ping(),
      postgres: () =>
        deps.db
          .selectFrom('audit_log')
          .select('id' as never)
          .limit(1)
          .execute(),
    });
    return reply.code(failed.length ? 503 : 200).send({ status: failed.length ? 'unavailable' : 'ok', failed });
  });
  app.get('/metrics', async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );

  app.addHook('onClose', async () => {
    auth.stop();
    limiter.stop();
    await Promise.all(Object.values(handlers).map((h) => h.handler.close()));
  });
  return app;
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

function jsonRpcError(body: unknown, message: string) {
  const id = (body as { id?: unknown } | undefined)?.id ?? null;
  return { jsonrpc: '2.0', id, error: { code: -32001, message } };
}
