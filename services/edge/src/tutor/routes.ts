import { CHAT_PAGE_SIZE, tutorListConversations, tutorMessages } from '@studium/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import type { Authenticator } from '../auth.ts';
import type { ChatHost } from '../chat/page.ts';
import { sendChatError } from '../chat/replies.ts';
import type { RelayTiming } from '../chat/sse-relay.ts';
import type { CallDeps, Caller } from '../mcp/tools.ts';
import type { WebAssets } from '../web/assets.ts';
import type { WebAuth } from '../web/auth.ts';
import { CSRF_HEADER } from '../web/auth.ts';
import { tokensMatch } from '../web/sessions.ts';
import { createTutorEdgeMetrics, sendTutorRefusal } from './metrics.ts';
import { registerTutorPage } from './page.ts';
import { relayTurn } from './relay.ts';
import { type PageView, pageView } from './view.ts';

export interface TutorRouteDeps {
  call: CallDeps;
  auth: Authenticator;
  /** The web pages' session sign-in: the page's requests carry the session cookie and its CSRF token. */
  web: WebAuth;
  registry: Registry;
  timing: RelayTiming;
  /** The built web assets the page links. */
  assets: WebAssets;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,200}$/;
const StreamBody = z.object({
  message: z.string({ error: 'message: нужна строка' }).max(20_000, 'message: слишком длинное сообщение'),
  conversation_id: z.string().uuid('conversation_id: нужен uuid разговора или null').nullable().optional(),
  lesson: z.string().regex(ID, 'lesson: идентификатор урока или курса').nullable().optional(),
});
const pageNumber = (fallback: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/)
    .transform(Number)
    .pipe(z.number().int().min(1).max(max))
    .optional()
    .transform((v) => v ?? fallback);
const PageQuery = z.object({
  page: pageNumber(1, 1_000_000),
  page_size: pageNumber(CHAT_PAGE_SIZE.default, CHAT_PAGE_SIZE.max),
});
const UNAVAILABLE = 'Репетитор сейчас недоступен, попробуйте позже';

/**
 * The platform's tutor (issue 23): /v1/tutor/* and its page at /tutor. The same token
 * resolution and rate limit as /mcp; ai-chat keeps the conversations and calls the model, the
 * edge runs the model's tool calls for the student.
 */
export async function registerTutorRoutes(app: ChatHost, deps: TutorRouteDeps): Promise<void> {
  const metrics = createTutorEdgeMetrics(deps.registry);
  const { bus, limiter } = deps.call;

  await app.register(async (tutor) => {
    tutor.setErrorHandler((err: { statusCode?: number }, _request, reply) => {
      const status = err.statusCode ?? 500;
      if (status === 400 || status === 413 || status === 415)
        return sendChatError(reply, 422, 'invalid_body', 'Тело запроса — JSON вида {"message": "…", "lesson": "…"}');
      deps.call.log.error({ err }, 'tutor route failed');
      return sendChatError(reply, 500, 'internal_error', 'Внутренняя ошибка репетитора');
    });

    /**
     * The signed-in student as a tool caller, or null with the HTTP error sent: the page's web
     * session (cookie, and its CSRF token on a POST), or an API token as at /mcp.
     */
    const caller = async (request: FastifyRequest, reply: FastifyReply, route: string, writes: boolean) => {
      const deny = (status: number, code: string, detail: string) => {
        metrics.requests.labels(route, String(status)).inc();
        void sendChatError(reply, status, code, detail);
        return null;
      };
      if (!request.headers.authorization) {
        const user = await deps.web.current(request);
        if (user === 'unavailable') return deny(503, 'tutor_unavailable', UNAVAILABLE);
        if (!user) return deny(401, 'invalid_token', 'Сессия закончилась или вы не вошли: войдите заново');
        if (writes && !tokensMatch(request.headers[CSRF_HEADER], user.csrf))
          return deny(403, 'csrf_required', 'Запрос без проверочного токена страницы: обновите страницу');
        const rate = await limiter.check(`web:${user.session.key}`);
        if (!rate.allowed) {
          reply.header('retry-after', String(rate.retryAfter));
          return deny(429, 'rate_limited', 'Слишком много запросов, попробуйте чуть позже');
        }
        const c: Caller = {
          principal: user.principal,
          tokenKey: `web:${user.session.key}`,
          endpoint: 'web:tutor',
          requestId: request.id,
        };
        return c;
      }
      const result = await deps.auth.authenticate(request.headers.authorization);
      if (!result.ok) {
        if (result.status === 401)
          return deny(401, 'invalid_token', 'Нет токена или он недействителен: войдите заново');
        return deny(503, 'tutor_unavailable', UNAVAILABLE);
      }
      if (writes && result.principal.scope !== 'write')
        return deny(403, 'write_scope_required', 'Токен только для чтения: для занятия нужен обычный');
      const rate = await limiter.check(result.tokenKey);
      if (!rate.allowed) {
        reply.header('retry-after', String(rate.retryAfter));
        return deny(429, 'rate_limited', 'Слишком много запросов, попробуйте чуть позже');
      }
      const c: Caller = {
        principal: result.principal,
        tokenKey: result.tokenKey,
        endpoint: '/tutor',
        requestId: request.id,
      };
      return c;
    };

    // The caller is checked before the body is read (as the chat's stream): an unauthenticated
    // client cannot make the edge read and parse bodies.
    const streamCallers = new WeakMap<FastifyRequest, Caller>();
    const streamAuth = async (request: FastifyRequest, reply: FastifyReply) => {
      const who = await caller(request, reply, 'stream', true);
      if (!who) return reply;
      streamCallers.set(request, who);
    };
    tutor.post('/v1/tutor/stream', { bodyLimit: 64 * 1024, onRequest: streamAuth }, async (request, reply) => {
      const who = streamCallers.get(request);
      if (!who) return sendChatError(reply, 401, 'invalid_token', 'Сессия закончилась или вы не вошли: войдите заново');
      const body = StreamBody.safeParse(request.body);
      if (!body.success) {
        metrics.requests.labels('stream', '422').inc();
        return sendChatError(reply, 422, 'message_invalid', body.error.issues[0]?.message ?? 'Неверное тело запроса');
      }
      const args = {
        message: body.data.message,
        conversation_id: body.data.conversation_id ?? null,
        lesson: body.data.lesson ?? null,
      };
      await relayTurn({ call: deps.call, metrics, timing: deps.timing }, reply, who, args);
      return reply;
    });

    tutor.get('/v1/tutor/conversations', async (request, reply) => {
      const who = await caller(request, reply, 'conversations', false);
      if (!who) return reply;
      const query = PageQuery.safeParse(request.query);
      if (!query.success) return badPage(reply);
      try {
        const res = await bus.request(tutorListConversations, who.principal, query.data);
        if (!res.ok) return sendTutorRefusal(reply, 'conversations', res.error, metrics);
        return reply.header('cache-control', 'no-store').send(res.data);
      } catch {
        return sendChatError(reply, 503, 'tutor_unavailable', UNAVAILABLE);
      }
    });

    tutor.get<{ Params: { id: string } }>('/v1/tutor/conversations/:id/messages', async (request, reply) => {
      const who = await caller(request, reply, 'messages', false);
      if (!who) return reply;
      const query = PageQuery.safeParse(request.query);
      if (!query.success) return badPage(reply);
      try {
        const res = await bus.request(tutorMessages, who.principal, {
          conversation_id: request.params.id.slice(0, 100),
          ...query.data,
        });
        if (!res.ok) return sendTutorRefusal(reply, 'messages', res.error, metrics);
        // Tool results go to the page only as their views (the buttons, the quiz, the header).
        type Shown = { role: 'user' | 'assistant'; content: string; note?: string } | { role: 'tool'; view: PageView };
        const items = res.data.items.flatMap((m): Shown[] => {
          if (m.role !== 'tool') return [{ role: m.role, content: m.content, ...(m.note ? { note: m.note } : {}) }];
          const view = pageView(m.tool ?? '', m.content);
          return view ? [{ role: 'tool', view }] : [];
        });
        return reply.header('cache-control', 'no-store').send({ ...res.data, items });
      } catch {
        return sendChatError(reply, 503, 'tutor_unavailable', UNAVAILABLE);
      }
    });

    function badPage(reply: FastifyReply) {
      return sendChatError(
        reply,
        422,
        'invalid_page',
        `page — целое число от 1, page_size — от 1 до ${CHAT_PAGE_SIZE.max}`,
      );
    }
  });
  await registerTutorPage(app, deps.web, deps.assets);
}
