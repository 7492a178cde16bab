import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { PRINCIPAL_CHANGED, verifyPassword } from '@studium/contracts';
import type { Bus, Logger } from '@studium/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { AuditLog } from '../audit.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { consentPage, loginPage, pageError } from './pages.ts';
import { SCOPES } from './provider.ts';

/** The edge's fastify instance (its logger is the platform's pino logger). */
export type EdgeFastify = FastifyInstance<Server, IncomingMessage, ServerResponse, Logger>;

export interface OAuthRouteDeps {
  provider: Provider;
  bus: Bus;
  audit: AuditLog;
  /** Sign-in attempts per login (shared by replicas). */
  loginLimiter: RateLimiter;
  /** Sign-in attempts per client address. */
  addressLimiter: RateLimiter;
  /** Protected resources by endpoint path (`/mcp` → `https://host/mcp`). */
  resources: Record<string, string>;
  issuer: string;
  /** Called when a user's grants change, so cached tokens are dropped on every replica. */
  onUserChanged?: (user: string) => void;
}

/** The protected-resource metadata URL of an endpoint (RFC 9728, path-inserted well-known URL). */
export function resourceMetadataUrl(resource: string): string {
  const u = new URL(resource);
  return `${u.origin}/.well-known/oauth-protected-resource${u.pathname === '/' ? '' : u.pathname}`;
}

/** Paths served for the authorization flow (cross-origin by design: the Origin allow-list skips them). */
export function isOAuthPath(url: string): boolean {
  return url.startsWith('/.well-known/') || url.startsWith('/oauth/') || url.startsWith('/signin/');
}

function form(request: FastifyRequest): Record<string, string> {
  return (request.body ?? {}) as Record<string, string>;
}

/**
 * Mounts the authorization server (oidc-provider under the issuer's path), the protected-resource
 * metadata of every endpoint, and the sign-in and consent pages.
 */
export async function registerOAuth(app: EdgeFastify, deps: OAuthRouteDeps): Promise<void> {
  const { provider } = deps;
  const mount = new URL(deps.issuer).pathname.replace(/\/$/, '');
  const callback = provider.callback();
  const toProvider = (request: FastifyRequest, reply: FastifyReply, url: string) => {
    reply.hijack();
    const raw = request.raw as typeof request.raw & { originalUrl?: string };
    raw.originalUrl = `${mount}${url}`;
    raw.url = url;
    callback(raw, reply.raw);
  };

  provider.on('grant.revoked', (ctx, grantId) => {
    const e = (ctx.oidc?.entities ?? {}) as Record<string, { accountId?: string; clientId?: string } | undefined>;
    const user = e.RefreshToken?.accountId ?? e.AccessToken?.accountId ?? e.Grant?.accountId ?? null;
    void deps.audit.record({
      kind: 'oauth_revocation',
      user,
      endpoint: 'oauth',
      detail: { grantId, client: e.Client?.clientId },
    });
    if (user) deps.onUserChanged?.(user);
  });
  provider.on('access_token.destroyed', (token) => {
    if (token.accountId) deps.onUserChanged?.(token.accountId);
  });

  await app.register(async (scope) => {
    // oidc-provider reads its own bodies: the stream is left unread here.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    const handler = (request: FastifyRequest, reply: FastifyReply) =>
      toProvider(request, reply, request.url.slice(mount.length) || '/');
    scope.all(`${mount}/*`, handler);
    // RFC 8414 path-inserted metadata URL of an issuer with a path.
    scope.get(`/.well-known/oauth-authorization-server${mount}`, (request, reply) =>
      toProvider(request, reply, '/.well-known/openid-configuration'),
    );
    scope.get(`/.well-known/openid-configuration${mount}`, (request, reply) =>
      toProvider(request, reply, '/.well-known/openid-configuration'),
    );
  });

  // RFC 9728 protected-resource metadata, one per endpoint (and the root one names /mcp).
  const prm = (resource: string) => ({
    resource,
    authorization_servers: [deps.issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Studium',
  });
  const cors = (reply: FastifyReply) =>
    reply
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-headers', 'mcp-protocol-version, authorization, content-type')
      .header('access-control-allow-methods', 'GET, OPTIONS');
  const firstResource = Object.values(deps.resources)[0] as string;
  for (const [path, resource] of [['', firstResource], ...Object.entries(deps.resources)] as [string, string][]) {
    app.get(`/.well-known/oauth-protected-resource${path}`, async (_request, reply) => cors(reply).send(prm(resource)));
    app.options(`/.well-known/oauth-protected-resource${path}`, async (_request, reply) =>
      cors(reply).code(204).send(),
    );
  }

  // Sign-in, consent and sign-out pages.
  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 8192 },
      (_r, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    const html = (reply: FastifyReply, status: number, body: string) =>
      reply
        .code(status)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-frame-options', 'DENY')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
        .send(body);
    const details = async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const interaction = await provider.interactionDetails(request.raw, reply.raw);
        const client = await provider.Client.find(String(interaction.params.client_id));
        return { interaction, clientName: client?.clientName ?? String(interaction.params.client_id) };
      } catch {
        return null;
      }
    };
    const expired = (reply: FastifyReply) =>
      html(reply, 400, pageError('interaction_expired', 'страница входа устарела, начните подключение заново'));
    const finish = async (request: FastifyRequest, reply: FastifyReply, result: Record<string, unknown>) => {
      const to = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
      return reply.code(303).header('location', to).send();
    };

    scope.get<{ Params: { uid: string } }>('/signin/:uid', async (request, reply) => {
      const d = await details(request, reply);
      if (!d || d.interaction.uid !== request.params.uid) return expired(reply);
      const { interaction, clientName } = d;
      if (interaction.prompt.name === 'login') return html(reply, 200, loginPage(interaction.uid, clientName));
      const requested = String(interaction.params.scope ?? '')
        .split(' ')
        .filter(Boolean);
      const resource = String(interaction.params.resource ?? Object.values(deps.resources)[0]);
      return html(
        reply,
        200,
        consentPage(interaction.uid, clientName, String(interaction.session?.accountId), requested, resource),
      );
    });

    scope.post<{ Params: { uid: string } }>('/signin/:uid/login', async (request, reply) => {
      const d = await details(request, reply);
      if (!d || d.interaction.uid !== request.params.uid || d.interaction.prompt.name !== 'login')
        return expired(reply);
      const { login = '', password = '' } = form(request);
      const user = login.trim().slice(0, 320);
      const byLogin = await deps.loginLimiter.check(`login:${user.toLowerCase()}`);
      const byAddress = await deps.addressLimiter.check(request.ip);
      if (!byLogin.allowed || !byAddress.allowed) {
        const wait = Math.max(byLogin.allowed ? 0 : byLogin.retryAfter, byAddress.allowed ? 0 : byAddress.retryAfter);
        reply.header('retry-after', String(wait));
        return html(
          reply,
          429,
          loginPage(d.interaction.uid, d.clientName, `Слишком много попыток входа. Повторите через ${wait} с.`, user),
        );
      }
      const result = await deps.bus
        .request(verifyPassword, null, { login: user, password: password.slice(0, 200) })
        .catch(() => null);
      if (!result) {
        return html(
          reply,
          503,
          loginPage(d.interaction.uid, d.clientName, 'Сервис входа сейчас недоступен. Попробуйте позже.', user),
        );
      }
      if (!result.ok) {
        void deps.audit.record({
          kind: 'oauth_login_failed',
          user: user || null,
          endpoint: 'oauth',
          detail: { ip: request.ip },
        });
        return html(reply, 401, loginPage(d.interaction.uid, d.clientName, 'Неверный логин или пароль.', user));
      }
      return finish(request, reply, { login: { accountId: result.data.user } });
    });

    scope.post<{ Params: { uid: string } }>('/signin/:uid/consent', async (request, reply) => {
      const d = await details(request, reply);
      if (!d || d.interaction.uid !== request.params.uid || d.interaction.prompt.name !== 'consent')
        return expired(reply);
      const { interaction } = d;
      const accountId = String(interaction.session?.accountId);
      const clientId = String(interaction.params.client_id);
      const grant = interaction.grantId
        ? ((await provider.Grant.find(interaction.grantId)) ?? new provider.Grant({ accountId, clientId }))
        : new provider.Grant({ accountId, clientId });
      const missing = interaction.prompt.details as {
        missingOIDCScope?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(resource, scopes.join(' '));
      }
      const grantId = await grant.save();
      await deps.audit.record({
        kind: 'oauth_grant',
        user: accountId,
        endpoint: 'oauth',
        detail: { client: clientId, grantId, resources: missing.missingResourceScopes ?? {} },
      });
      return finish(request, reply, { consent: { grantId } });
    });

    scope.post<{ Params: { uid: string } }>('/signin/:uid/abort', async (request, reply) => {
      const d = await details(request, reply);
      if (!d || d.interaction.uid !== request.params.uid) return expired(reply);
      return finish(request, reply, { error: 'access_denied', error_description: 'пользователь отказал в доступе' });
    });

    scope.get('/signout', async (_request, reply) => reply.redirect(`${deps.issuer}/session/end`));
  });
}

/** Announces on NATS that a user's tokens changed, so every edge replica drops its cached principals. */
export function announceUserChanged(bus: Bus, user: string): void {
  bus.nc.publish(bus.subject(PRINCIPAL_CHANGED), JSON.stringify({ user }));
}
