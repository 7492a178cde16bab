import {
  CHAT_PAGE_SIZE,
  chatDeleteThread,
  chatListThreads,
  chatModelStatus,
  chatThreadMessages,
  isChatUser,
  type Principal,
} from '@studium/contracts';
import type { Bus, Logger } from '@studium/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import type { Authenticator } from '../auth.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { WebAssets } from '../web/assets.ts';
import { createChatEdgeMetrics } from './metrics.ts';
import { type ChatHost, registerChatPage } from './page.ts';
import { relayAnswer } from './relay.ts';
import { type ChatErrorCode, sendChatError, sendRefusal } from './replies.ts';
import type { RelayTiming } from './sse-relay.ts';

export interface ChatRouteDeps {
  bus: Bus;
  auth: Authenticator;
  limiter: RateLimiter;
  registry: Registry;
  log: Logger;
  timing: RelayTiming;
  /** The built web assets the page links. */
  assets: WebAssets;
}

const StreamBody = z.object({
  message: z.string({ error: 'message: нужна строка с вопросом' }),
  thread_id: z.string({ error: 'thread_id: нужен uuid треда или null' }).nullable().optional(),
});

const pageNumber = (fallback: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'нужно целое число')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max))
    .optional()
    .transform((v) => v ?? fallback);
const PageQuery = z.object({
  page: pageNumber(1, 1_000_000_000),
  page_size: pageNumber(CHAT_PAGE_SIZE.default, CHAT_PAGE_SIZE.max),
});

const BAD_BODY = 'Тело запроса — JSON вида {"message": "вопрос", "thread_id": null}';

/**
 * The teacher's AI chat (spec 001) at /v1/ai-chat/*, and its web page at /chat. One entry with the
 * MCP endpoints: the same token resolution, rate limit and Host/Origin checks; ai-chat owns the
 * data and the model calls.
 */
export async function registerChatRoutes(app: ChatHost, deps: ChatRouteDeps): Promise<void> {
  const metrics = createChatEdgeMetrics(deps.registry);
  const { bus } = deps;

  await app.register(async (chat) => {
    // Spec: a bad request is 422 before the stream; JSON parse errors and oversized bodies included.
    chat.setErrorHandler((err: { statusCode?: number }, _request, reply) => {
      const status = err.statusCode ?? 500;
      if (status === 400 || status === 413 || status === 415)
        return sendChatError(reply, 422, 'invalid_body', BAD_BODY);
      deps.log.error({ err }, 'chat route failed');
      return sendChatError(reply, 500, 'internal_error', 'Внутренняя ошибка ИИ-чата');
    });

    /** The caller, or an HTTP error already sent. */
    const caller = async (request: FastifyRequest, reply: FastifyReply, route: string, writes: boolean) => {
      const result = await deps.auth.authenticate(request.headers.authorization);
      const deny = (status: number, code: ChatErrorCode, detail: string) => {
        metrics.requests.labels(route, String(status)).inc();
        void sendChatError(reply, status, code, detail);
        return null;
      };
      if (!result.ok) {
        if (result.status === 401) {
          reply.header('www-authenticate', `Bearer error="invalid_token", error_description="${result.reason}"`);
          return deny(401, 'invalid_token', 'Нет токена или он недействителен: войдите заново');
        }
        return deny(503, 'chat_unavailable', 'ИИ-чат сейчас недоступен, попробуйте позже');
      }
      const { principal, tokenKey } = result;
      if (!isChatUser(principal.roles))
        return deny(403, 'chat_role_required', 'ИИ-чат доступен учителям и администраторам школы');
      if (writes && principal.scope === 'read')
        return deny(403, 'write_scope_required', 'Токен только для чтения: для переписки нужен обычный');
      const rate = await deps.limiter.check(tokenKey);
      if (!rate.allowed) {
        reply.header('retry-after', String(rate.retryAfter));
        return deny(429, 'rate_limited', 'Слишком много запросов, попробуйте чуть позже');
      }
      return principal;
    };

    /** ai-chat's reply, or null with the 503 already sent. */
    const call = async <T>(reply: FastifyReply, route: string, request: () => Promise<T>): Promise<T | null> => {
      try {
        return await request();
      } catch (err) {
        deps.log.warn({ err, route }, 'ai-chat unavailable');
        metrics.requests.labels(route, '503').inc();
        void sendChatError(reply, 503, 'chat_unavailable', 'ИИ-чат сейчас недоступен, попробуйте позже');
        return null;
      }
    };

    // The token is checked before the body is read: no token is 401 (not 422), and an
    // unauthenticated client cannot make the edge read and parse bodies.
    const streams = new WeakMap<FastifyRequest, { principal: Principal; startedAt: number }>();
    const streamAuth = async (request: FastifyRequest, reply: FastifyReply) => {
      const startedAt = performance.now();
      const principal = await caller(request, reply, 'stream', true);
      if (!principal) return reply;
      streams.set(request, { principal, startedAt });
    };
    chat.post('/v1/ai-chat/stream', { bodyLimit: 256 * 1024, onRequest: streamAuth }, async (request, reply) => {
      const authed = streams.get(request);
      if (!authed)
        return sendChatError(reply, 401, 'invalid_token', 'Нет токена или он недействителен: войдите заново');
      const { principal, startedAt } = authed;
      const body = StreamBody.safeParse(request.body);
      if (!body.success) {
        metrics.requests.labels('stream', '422').inc();
        return sendChatError(reply, 422, 'message_invalid', body.error.issues[0]?.message ?? BAD_BODY);
      }
      const args = { message: body.data.message, thread_id: body.data.thread_id ?? null };
      await relayAnswer({ bus, log: deps.log, metrics, timing: deps.timing }, reply, principal, args, startedAt);
      return reply;
    });

    chat.get('/v1/ai-chat/threads', async (request, reply) => {
      const principal = await caller(request, reply, 'threads', false);
      if (!principal) return reply;
      const query = PageQuery.safeParse(request.query);
      if (!query.success) return badPage(reply, 'threads');
      const res = await call(reply, 'threads', () => bus.request(chatListThreads, principal, query.data));
      if (!res) return reply;
      if (!res.ok) return sendRefusal(reply, 'threads', res.error, metrics);
      metrics.requests.labels('threads', '200').inc();
      return reply.header('cache-control', 'no-store').send(res.data);
    });

    chat.get<{ Params: { thread_id: string } }>('/v1/ai-chat/threads/:thread_id/messages', async (request, reply) => {
      const principal = await caller(request, reply, 'messages', false);
      if (!principal) return reply;
      const query = PageQuery.safeParse(request.query);
      if (!query.success) return badPage(reply, 'messages');
      const args = { thread_id: request.params.thread_id, ...query.data };
      const res = await call(reply, 'messages', () => bus.request(chatThreadMessages, principal, args));
      if (!res) return reply;
      if (!res.ok) return sendRefusal(reply, 'messages', res.error, metrics);
      metrics.requests.labels('messages', '200').inc();
      return reply.header('cache-control', 'no-store').send(res.data);
    });

    chat.delete<{ Params: { thread_id: string } }>('/v1/ai-chat/threads/:thread_id', async (request, reply) => {
      const principal = await caller(request, reply, 'delete', true);
      if (!principal) return reply;
      const res = await call(reply, 'delete', () =>
        bus.request(chatDeleteThread, principal, { thread_id: request.params.thread_id }),
      );
      if (!res) return reply;
      if (!res.ok) return sendRefusal(reply, 'delete', res.error, metrics);
      metrics.requests.labels('delete', '204').inc();
      return reply.code(204).send();
    });

    // Not in the spec: whether a model is connected, for the page's banner.
    chat.get('/v1/ai-chat/status', async (request, reply) => {
      const principal = await caller(request, reply, 'status', false);
      if (!principal) return reply;
      try {
        const res = await bus.request(chatModelStatus, principal, {});
        if (!res.ok) return sendRefusal(reply, 'status', res.error, metrics);
        return reply.header('cache-control', 'no-store').send(res.data);
      } catch {
        return sendChatError(reply, 503, 'chat_unavailable', 'ИИ-чат сейчас недоступен, попробуйте позже');
      }
    });

    function badPage(reply: FastifyReply, route: string) {
      metrics.requests.labels(route, '422').inc();
      return sendChatError(
        reply,
        422,
        'invalid_page',
        `page — целое число от 1, page_size — от 1 до ${CHAT_PAGE_SIZE.max}`,
      );
    }
  });
  await registerChatPage(app, deps.assets);
}
