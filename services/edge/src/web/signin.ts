import { randomBytes } from 'node:crypto';
import { verifyPassword } from '@studium/contracts';
import type { Bus } from '@studium/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit.ts';
import type { EdgeFastify } from '../fastify.ts';
import { parseForms, sendHtml } from '../forms.ts';
import { DISCONNECT_WORDS } from '../oauth/pages.ts';
import type { SignInThrottle } from '../signin-throttle.ts';
import type { WebAssets } from './assets.ts';
import type { WebAuth } from './auth.ts';
import { LOGIN_COOKIE, readCookie, SESSION_COOKIE, setCookie } from './cookies.ts';
import { sameOriginPath } from './next.ts';
import { csrfToken, type SessionRepository, tokensMatch } from './sessions.ts';
import { signInPage } from './signin-page.ts';

export interface SignInDeps {
  bus: Bus;
  sessions: SessionRepository;
  auth: WebAuth;
  audit: AuditLog;
  /** Sign-in attempts per address and (login, address): the same windows as the OAuth sign-in's. */
  throttle: SignInThrottle;
  sessionTtlS: number;
  /** The built stylesheet and icon the form links. */
  assets: WebAssets;
  /** The site's origin (PUBLIC_URL): `next` is kept only when it resolves to a page of it. */
  origin: string;
}

const LOGIN_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * GET/POST /login and POST /logout. The form carries a double-submit token (cookie + field) so no
 * other site can sign a browser in to an account of its choosing; sign-out needs the session's
 * CSRF token. The login and password are checked by enrollment exactly as on the OAuth sign-in page.
 */
export async function registerSignIn(app: EdgeFastify, deps: SignInDeps): Promise<void> {
  const safeNext = (next: unknown) => sameOriginPath(next, deps.origin);
  await app.register(async (scope) => {
    parseForms(scope, 8192);
    const html = (reply: FastifyReply, status: number, body: string) =>
      sendHtml(
        reply,
        status,
        body,
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'",
      );
    const form = (
      request: FastifyRequest,
      reply: FastifyReply,
      status: number,
      extra: Partial<Parameters<typeof signInPage>[1]>,
    ) => {
      const csrf = randomBytes(32).toString('base64url');
      setCookie(request, reply, LOGIN_COOKIE, csrf, 3600);
      return html(reply, status, signInPage(deps.assets, { csrf, next: '/', ...extra }));
    };

    scope.get('/login', async (request, reply) => {
      const query = request.query as { next?: string; out?: string };
      const user = await deps.auth.current(request);
      if (user && user !== 'unavailable') return reply.code(303).header('location', safeNext(query.next)).send();
      return form(request, reply, 200, {
        next: safeNext(query.next),
        notice: query.out === '1' ? `Вы вышли из Studium. ${DISCONNECT_WORDS}` : undefined,
      });
    });

    scope.post('/login', async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const str = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : '');
      const login = str(body.login, 320).trim();
      const next = safeNext(body.next);
      const cookie = readCookie(request, LOGIN_COOKIE);
      if (!cookie || !LOGIN_ID.test(cookie) || !tokensMatch(body.csrf, cookie)) {
        return form(request, reply, 403, {
          next,
          login,
          error: 'Страница входа устарела: введите логин и пароль ещё раз.',
        });
      }
      const password = str(body.password, 200);
      const outcome = await deps.throttle.guard(login, request.ip, async () => {
        const result = await deps.bus.request(verifyPassword, null, { login, password }).catch(() => null);
        return { wrongPassword: result?.ok === false, value: result };
      });
      if ('refused' in outcome) {
        reply.header('retry-after', String(outcome.refused));
        return form(request, reply, 429, {
          next,
          login,
          error: `Слишком много попыток входа. Повторите через ${outcome.refused} с.`,
        });
      }
      const result = outcome.value;
      if (!result)
        return form(request, reply, 503, { next, login, error: 'Вход сейчас недоступен. Попробуйте позже.' });
      if (!result.ok) {
        void deps.audit.record({
          kind: 'web_login_failed',
          user: login || null,
          endpoint: 'web',
          detail: { ip: request.ip },
        });
        return form(request, reply, 401, { next, login, error: 'Неверный логин или пароль.' });
      }
      const { id } = await deps.sessions.create((result.data as { user: string }).user);
      setCookie(request, reply, SESSION_COOKIE, id, deps.sessionTtlS);
      setCookie(request, reply, LOGIN_COOKIE, '', 0);
      return reply.code(303).header('location', next).send();
    });

    scope.post('/logout', async (request, reply) => {
      const id = readCookie(request, SESSION_COOKIE);
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (id && !tokensMatch(body.csrf, csrfToken(id))) {
        return reply.code(403).type('text/plain; charset=utf-8').send('Запрос без проверочного токена страницы.');
      }
      if (id) await deps.sessions.delete(id);
      setCookie(request, reply, SESSION_COOKIE, '', 0);
      return reply.code(303).header('location', '/login?out=1').send();
    });
  });
}
