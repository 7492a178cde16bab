import type { Bus } from '@studium/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { EdgeDb } from '../audit.ts';
import type { EdgeFastify } from '../fastify.ts';
import { GRANT_ID, listGrants, revokeGrants } from '../oauth/grants.ts';
import { announceUserChanged } from '../oauth/routes.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { WebAuth } from '../web/auth.ts';

export interface AssistantsDeps {
  db: Kysely<EdgeDb>;
  bus: Bus;
  auth: WebAuth;
  /** The tool calls' limiter: these routes count against the session's window like its tool calls. */
  limiter: RateLimiter;
}

/** One connected assistant as the page shows it. */
export interface AssistantView {
  grant: string;
  /** The name the client gave itself, with control and bidi characters taken out (it is shown). */
  name: string;
  client: string;
  /** Endpoint path (`/mcp`, `/kb`, `/authoring`) → the scopes granted there. */
  scopes: Record<string, string[]>;
  created_at: string | null;
  last_used_at: string | null;
  expires_at: string | null;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** A self-declared name as shown: no control or bidi characters, at most 200 characters. */
export function shownName(name: string | null, fallback: string): string {
  const clean = (name ?? '').replace(HIDDEN, '').trim().slice(0, 200);
  return clean || fallback;
}

function endpointOf(resource: string): string {
  const path = URL.parse(resource)?.pathname ?? resource;
  const end = path.slice(path.lastIndexOf('/'));
  return ['/mcp', '/kb', '/authoring'].includes(end) ? end : resource;
}

/**
 * The «Подключённые ассистенты» page's API: GET /api/student/assistants lists the signed-in
 * user's OAuth grants, POST /api/student/assistants/revoke `{ grant }` ends one of them and POST
 * /api/student/assistants/revoke-all every one — the admin CLI's `grant list|revoke` operations
 * (oauth/grants.ts), for the session's user only. Session and CSRF are checked before the body is
 * read (WebAuth.api), bodies are at most 1 KB, and each call counts against the session's rate
 * limit. Ending a grant deletes its tokens at once and tells every edge to drop cached ones.
 */
export async function registerAssistants(app: EdgeFastify, deps: AssistantsDeps): Promise<void> {
  const limited = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = request.webUser!;
    const rate = await deps.limiter.check(`web:${user.session.key}`);
    if (rate.allowed) return false;
    reply.header('retry-after', String(rate.retryAfter)).code(429);
    await reply.send({ ok: false, failure: `Слишком много запросов, повторите через ${rate.retryAfter} с.` });
    return true;
  };
  await app.register(async (scope) => {
    scope.setErrorHandler((err: { statusCode?: number }, request, reply) => {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
      if (status >= 500) request.log.error({ err, reqId: request.id }, 'assistants api failed');
      const failure =
        status === 413
          ? 'Запрос слишком большой.'
          : status < 500
            ? 'Запрос не разобран: тело — JSON-объект.'
            : 'Сервис сейчас недоступен, попробуйте позже.';
      return reply.code(status).send({ ok: false, failure });
    });
    scope.get('/api/student/assistants', { onRequest: deps.auth.api }, async (request, reply) => {
      if (await limited(request, reply)) return;
      const rows = await listGrants(deps.db, request.webUser!.principal.user);
      const assistants: AssistantView[] = rows.map((r) => {
        const resources = JSON.parse(r.scopes) as Record<string, { scope?: string } | string>;
        const scopes: Record<string, string[]> = {};
        for (const [resource, granted] of Object.entries(resources)) {
          const words = typeof granted === 'string' ? granted : (granted?.scope ?? '');
          scopes[endpointOf(resource)] = words.split(' ').filter(Boolean);
        }
        return {
          grant: r.grant,
          name: shownName(r.client_name, r.client),
          client: r.client,
          scopes,
          created_at: r.created_at,
          last_used_at: r.last_used_at,
          expires_at: r.expires_at,
        };
      });
      return reply.header('cache-control', 'no-store').send({ ok: true, data: { assistants } });
    });
    const revoke = async (request: FastifyRequest, reply: FastifyReply, one: boolean) => {
      if (await limited(request, reply)) return;
      const user = request.webUser!.principal.user;
      const grant = (request.body as { grant?: unknown } | null)?.grant;
      if (one && (typeof grant !== 'string' || !GRANT_ID.test(grant))) {
        return reply.code(400).send({ ok: false, failure: 'Не указано, какое подключение отключить.' });
      }
      const ended = await revokeGrants(deps.db, user, 'user', one ? (grant as string) : undefined);
      if (one && !ended) {
        return reply.code(404).send({ ok: false, failure: 'Такого подключения нет: обновите страницу.' });
      }
      if (ended) announceUserChanged(deps.bus, user);
      return reply.header('cache-control', 'no-store').send({ ok: true, data: { revoked: ended } });
    };
    const options = { onRequest: deps.auth.api, bodyLimit: 1024 };
    scope.post('/api/student/assistants/revoke', options, (request, reply) => revoke(request, reply, true));
    scope.post('/api/student/assistants/revoke-all', options, (request, reply) => revoke(request, reply, false));
  });
}
