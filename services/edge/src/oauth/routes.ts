import { PRINCIPAL_CHANGED } from '@studium/contracts';
import type { Bus } from '@studium/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EdgeFastify } from '../fastify.ts';
import type { OAuthRouteDeps } from './deps.ts';
import { pageError } from './pages.ts';
import { SCOPES } from './provider.ts';
import { registerSignin } from './signin.ts';

/** The protected-resource metadata URL of an endpoint (RFC 9728, path-inserted well-known URL). */
export function resourceMetadataUrl(resource: string): string {
  const u = new URL(resource);
  return `${u.origin}/.well-known/oauth-protected-resource${u.pathname === '/' ? '' : u.pathname}`;
}

/** Paths served for the authorization flow (cross-origin by design: the Origin allow-list skips them). */
export function isOAuthPath(url: string): boolean {
  return url.startsWith('/.well-known/') || url.startsWith('/oauth/') || url.startsWith('/signin/');
}

/** The scope of an authorization request that names none (what the endpoints' challenges ask for). */
export const DEFAULT_SCOPE = 'read write';

/** An authorization request (`GET /auth?…`) without a scope gets the default one instead of access_denied. */
function withDefaultScope(url: string): string {
  const q = url.indexOf('?');
  if (q < 0 || url.slice(0, q) !== '/auth') return url;
  const params = new URLSearchParams(url.slice(q + 1));
  if (params.get('scope')?.trim()) return url;
  params.set('scope', DEFAULT_SCOPE);
  return `/auth?${params}`;
}

/** Largest form of a POSTed authorization request (a GET one is bounded by node's header limit, 16 KB). */
const AUTH_FORM_LIMIT = 16 * 1024;

/**
 * Mounts the authorization server (oidc-provider under the issuer's path), the protected-resource
 * metadata of every endpoint, and the sign-in and consent pages.
 */
export async function registerOAuth(app: EdgeFastify, deps: OAuthRouteDeps): Promise<void> {
  const { provider } = deps;
  const issuerUrl = new URL(deps.issuer);
  const mount = issuerUrl.pathname.replace(/\/$/, '');
  const callback = provider.callback();
  const corsOrigins = new Set(deps.corsOrigins);
  const toProvider = (request: FastifyRequest, reply: FastifyReply, path: string) => {
    const origin = request.headers.origin;
    if (path === '/reg' && origin && corsOrigins.has(origin)) {
      // Hosted assistants that register from the browser (oidc-provider gives registration no CORS).
      reply.raw.setHeader('access-control-allow-origin', origin);
      reply.raw.setHeader('vary', 'Origin');
      if (request.method === 'OPTIONS') {
        return reply
          .code(204)
          .header('access-control-allow-methods', 'POST')
          .header('access-control-allow-headers', 'content-type, authorization')
          .send();
      }
    }
    reply.hijack();
    const url = request.method === 'GET' ? withDefaultScope(path) : path;
    const raw = request.raw as typeof request.raw & { originalUrl?: string };
    raw.originalUrl = `${mount}${url}`;
    raw.url = url;
    // One issuer, one origin for the sign-in session's cookies: whichever allowed Host the client
    // used, the authorization server's URLs (metadata endpoints, redirects) name the issuer's.
    raw.headers.host = issuerUrl.host;
    if (provider.proxy) {
      raw.headers['x-forwarded-host'] = issuerUrl.host;
      raw.headers['x-forwarded-proto'] = issuerUrl.protocol.slice(0, -1);
    }
    callback(raw, reply.raw);
  };
  const origins = new Set(deps.origins);
  const baseSuffix = (() => {
    const first = new URL(Object.values(deps.resources)[0] as string);
    const path = Object.keys(deps.resources)[0] as string;
    return first.pathname.slice(0, first.pathname.length - path.length);
  })();
  /** The origin a request reached the edge by, when it is one of the allowed ones. */
  const requestOrigin = (request: FastifyRequest): string | null => {
    const o = `${request.protocol}://${request.host}`.toLowerCase();
    return origins.has(o) ? o : null;
  };
  // The endpoints' 401 challenges name the metadata URL on the issuer's origin; a client that came
  // by another allowed spelling (localhost for 127.0.0.1) gets it on its own, so the resource the
  // metadata names is the URL it connected to (clients check that).
  const canonicalOrigin = new URL(Object.values(deps.resources)[0] as string).origin;
  app.addHook('onSend', async (request, reply, payload) => {
    const challenge = reply.getHeader('www-authenticate');
    if (typeof challenge !== 'string' || !challenge.includes('resource_metadata=')) return payload;
    const origin = requestOrigin(request);
    if (origin && origin !== canonicalOrigin) {
      reply.header(
        'www-authenticate',
        challenge.replaceAll(`resource_metadata="${canonicalOrigin}/`, `resource_metadata="${origin}/`),
      );
    }
    return payload;
  });
  /** The endpoint path a resource indicator names (any allowed origin), or null. */
  const endpointOf = (indicator: string): string | null => {
    const u = URL.parse(indicator);
    if (!u || !origins.has(u.origin) || u.search || u.hash) return null;
    const path = u.pathname.slice(baseSuffix.length);
    return u.pathname.startsWith(baseSuffix) && deps.resources[path] ? path : null;
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
    // RFC 6749 lets a client POST the authorization request as a form. oidc-provider serves POST
    // only with SameSite=None sign-in cookies; the edge hands it the same request as a GET instead,
    // so both methods take one path (the same checks, the same default scope). A cross-site POST
    // carries no Lax cookie: the user signs in again rather than being recognized.
    await scope.register(async (form) => {
      form.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: AUTH_FORM_LIMIT },
        (_r, body, done) => done(null, body),
      );
      form.post(`${mount}/auth`, (request, reply) => {
        if (typeof request.body !== 'string') {
          return reply
            .code(400)
            .type('text/html; charset=utf-8')
            .send(
              pageError('invalid_request', 'запрос авторизации методом POST — только форма (x-www-form-urlencoded)'),
            );
        }
        request.raw.method = 'GET';
        return toProvider(request, reply, `/auth?${new URLSearchParams(request.body)}`);
      });
    });
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
  const firstPath = Object.keys(deps.resources)[0] as string;
  for (const [path, endpoint] of [['', firstPath], ...Object.keys(deps.resources).map((p) => [p, p])] as [
    string,
    string,
  ][]) {
    // The resource as the client spelled the edge's origin (localhost or 127.0.0.1): clients check
    // that it is the URL they connected to.
    const resourceAt = (request: FastifyRequest) => {
      const origin = requestOrigin(request);
      return origin ? `${origin}${baseSuffix}${endpoint}` : (deps.resources[endpoint] as string);
    };
    app.get(`/.well-known/oauth-protected-resource${path}`, async (request, reply) =>
      cors(reply).send(prm(resourceAt(request))),
    );
    app.options(`/.well-known/oauth-protected-resource${path}`, async (_request, reply) =>
      cors(reply).code(204).send(),
    );
  }

  // Sign-in, consent and sign-out pages.
  await registerSignin(app, deps, endpointOf);
}

/** Announces on NATS that a user's tokens changed, so every edge replica drops its cached principals. */
export function announceUserChanged(bus: Bus, user: string): void {
  bus.nc.publish(bus.subject(PRINCIPAL_CHANGED), JSON.stringify({ user }));
}
