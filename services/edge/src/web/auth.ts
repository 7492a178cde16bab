import { type Principal, resolveUser } from '@studium/contracts';
import type { Bus } from '@studium/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit.ts';
import { readCookie, SESSION_COOKIE } from './cookies.ts';
import { sameOriginPath } from './next.ts';
import { csrfToken, type SessionRepository, tokensMatch, type WebSession } from './sessions.ts';

/** The signed-in user of a web request. */
export interface WebUser {
  /** The same principal the MCP endpoints build for this user (write scope, selected space). */
  principal: Principal;
  session: WebSession;
  /** The session's CSRF token: every state-changing request sends it back. */
  csrf: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user of a web page or web API request, set by WebAuth's hooks. */
    webUser?: WebUser;
  }
}

/** Header a page's fetch sends its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Who is signed in: the session cookie → the session row → enrollment's principal of its user
 * (resolve_user with the session's start, so revoking a user's access ends their sessions too).
 * Nothing is cached: the selected space changes with set_space, and a page load is one more
 * lookup, not a hot path.
 */
export class WebAuth {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly bus: Bus,
    private readonly audit: AuditLog,
    /** The site's origin: the way back after sign-in must be one of its pages. */
    private readonly origin: string,
  ) {}

  /** The user of a request, null when not signed in, 'unavailable' when the check could not run. */
  async current(request: FastifyRequest): Promise<WebUser | null | 'unavailable'> {
    const id = readCookie(request, SESSION_COOKIE);
    if (!id) return null;
    try {
      const session = await this.sessions.find(id);
      if (!session) return null;
      const args = { user: session.user, scope: 'write' as const, issued_at: session.createdAt };
      const reply = await this.bus.request(resolveUser, null, args, { idempotent: true });
      if (!reply.ok) return null;
      return { principal: (reply.data as { principal: Principal }).principal, session, csrf: csrfToken(id) };
    } catch {
      return 'unavailable';
    }
  }

  /**
   * onRequest hook of a page: sets request.webUser, or sends the browser to the sign-in page with
   * the address to come back to.
   */
  readonly page = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await this.current(request);
    if (user === 'unavailable') return reply.code(503).type('text/plain; charset=utf-8').send(UNAVAILABLE);
    if (!user) {
      const next = encodeURIComponent(sameOriginPath(request.url, this.origin));
      return reply.code(303).header('location', `/login?next=${next}`).send();
    }
    request.webUser = user;
  };

  /**
   * onRequest hook of a web API route: 401 without a session, 403 when a state-changing request
   * lacks the session's CSRF token (header or, for plain forms, nothing else is accepted here).
   * Runs before the body is read, so an anonymous or forged request costs no body parsing.
   */
  readonly api = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await this.current(request);
    if (user === 'unavailable') return reply.code(503).send({ ok: false, failure: UNAVAILABLE });
    if (!user) return reply.code(401).send({ ok: false, failure: 'Сессия закончилась: войдите заново.' });
    if (!SAFE.has(request.method) && !tokensMatch(request.headers[CSRF_HEADER], user.csrf)) {
      void this.audit.record({
        kind: 'web_csrf_refused',
        user: user.principal.user,
        endpoint: 'web',
        detail: { path: request.url.slice(0, 200) },
      });
      return reply
        .code(403)
        .send({ ok: false, failure: 'Запрос без проверочного токена страницы: обновите страницу.' });
    }
    request.webUser = user;
  };
}

const UNAVAILABLE = 'Вход сейчас недоступен, попробуйте позже.';
