import type { AuthInfo } from '@modelcontextprotocol/server';
import { LIMITS, phraseFor, store_homework_file } from '@studium/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Authenticator } from '../auth.ts';
import type { EdgeConfig } from '../config.ts';
import type { EdgeFastify } from '../fastify.ts';
import { createSurfaceHandler, SURFACES, type SurfacePath } from './endpoint.ts';
import { authorGate, type SurfaceAuthDeps, scopeChallenge, surfaceAuth } from './surface-auth.ts';
import type { CallDeps, Caller } from './tools.ts';
import { capabilitiesSupportUi } from './ui-support.ts';

/** What the MCP endpoints need besides the app. */
export interface McpEndpointsDeps {
  /** What their tool calls need (the homework files' store included). */
  call: CallDeps;
  auth: Authenticator;
  redis: Redis;
  config: Pick<EdgeConfig, 'SUBJECT_PREFIX' | 'MCP_BATCH_MAX' | 'MCP_BODY_LIMIT_KB'>;
  /** With OAuth: an endpoint's resource URL and metadata URL, for its challenges. */
  oauth?: { endpoint(path: string): SurfaceAuthDeps['oauth'] } | null;
}

/**
 * POST, GET and DELETE of each MCP surface: the bearer token checked before the body is read,
 * what is refused before the MCP layer, then the surface's stateless MCP handler. `close` ends
 * the handlers (app.ts calls it when the app closes).
 */
export function registerMcpEndpoints(app: EdgeFastify, deps: McpEndpointsDeps) {
  const uiKey = (caller: Caller) => `${deps.config.SUBJECT_PREFIX}:ui:${caller.tokenKey}`;
  // Stateless 2025-era clients send their capabilities only at initialize: remember them per token.
  const uiFromInitialize = async (caller: Caller) => (await deps.redis.get(uiKey(caller)).catch(() => null)) === '1';
  const handlers = Object.fromEntries(
    (Object.keys(SURFACES) as SurfacePath[]).map((p) => [p, createSurfaceHandler(p, deps.call, uiFromInitialize)]),
  ) as Record<SurfacePath, ReturnType<typeof createSurfaceHandler>>;

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
    if (messages.length > deps.config.MCP_BATCH_MAX) {
      const message = `Invalid Request: в пакете не больше ${deps.config.MCP_BATCH_MAX} сообщений`;
      return { status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message } } };
    }
    for (const m of messages) {
      // choose is the edge's own tool: it never reaches callTool, so it is counted here.
      if (m?.method === 'tools/call' && m.params?.name !== 'choose') continue;
      const rate = await deps.call.limiter.check(tokenKey);
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
    const authDeps = {
      auth: deps.auth,
      audit: deps.call.audit,
      metrics: deps.call.metrics,
      oauth: deps.oauth?.endpoint(path),
    };
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
        await deps.redis
          .set(uiKey(caller), capabilitiesSupportUi(body.params?.capabilities) ? '1' : '0', 'EX', 7 * 86_400)
          .catch(() => {});
      }
      reply.hijack();
      const raw = request.raw as typeof request.raw & { auth?: AuthInfo };
      raw.auth = { token: tokenKey, clientId: principal.user, scopes: [principal.scope], extra: { caller, onlyTool } };
      await handlers[path].node(raw, reply.raw, request.body);
    };
    const limit = deps.config.MCP_BODY_LIMIT_KB * 1024;
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
              error: { code: -32600, message: `Запрос слишком большой: не больше ${deps.config.MCP_BODY_LIMIT_KB} КБ` },
            });
          },
    };
    app.post(path, options, serve);
    app.get(path, options, serve);
    app.delete(path, options, serve);
  }
  return {
    close: async () => {
      await Promise.all(Object.values(handlers).map((h) => h.handler.close()));
    },
  };
}

/**
 * The largest store_homework_file call the edge reads: a batch of new files up to one file over the
 * batch limit, in base64, and the JSON around it — so a batch somewhat too large still reaches the
 * service and gets the spec's answer_too_large; a far larger body is HTTP 413.
 */
export const UPLOAD_BODY_LIMIT =
  Math.ceil(((LIMITS.homeworkBatchBytes + LIMITS.homeworkFileBytes) * 4) / 3) + 1024 * 1024;
