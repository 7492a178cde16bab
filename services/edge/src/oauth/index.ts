import type { Bus, Logger } from '@studium/platform';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { AuditLog, EdgeDb } from '../audit.ts';
import type { OAuthAccessToken } from '../auth.ts';
import type { EdgeConfig } from '../config.ts';
import type { EdgeFastify } from '../fastify.ts';
import { signInThrottle } from '../signin-throttle.ts';
import { sweepExpired } from './adapter.ts';
import { GrantUse } from './grants.ts';
import { createProvider } from './provider.ts';
import { parseRedirectPolicy } from './redirect.ts';
import { announceUserChanged, registerOAuth, resourceMetadataUrl } from './routes.ts';

/** The edge's OAuth side: the authorization server and what the endpoints need to check its tokens. */
export async function setupOAuth(
  deps: { bus: Bus; db: Kysely<EdgeDb>; redis: Redis; log: Logger; config: EdgeConfig },
  paths: string[],
) {
  const { config } = deps;
  const base = config.PUBLIC_URL.replace(/\/$/, '');
  const issuer = (config.OAUTH_ISSUER || `${base}/oauth`).replace(/\/$/, '');
  const resources = Object.fromEntries(paths.map((p) => [p, `${base}${p}`]));
  const origins = resourceOrigins(base, config.OAUTH_RESOURCE_ORIGINS);
  const suffix = base.slice(new URL(base).origin.length);
  const resourceAliases = Object.fromEntries(
    origins.flatMap((o) => paths.map((p) => [`${o}${suffix}${p}`, `${base}${p}`])).filter(([a, r]) => a !== r),
  );
  const provider = await createProvider(deps.db, {
    issuer,
    resources: Object.values(resources),
    resourceAliases,
    publicBase: base,
    redirects: parseRedirectPolicy(config.OAUTH_REDIRECTS),
    corsOrigins: config.OAUTH_CORS_ORIGINS,
    accessTokenTtlS: config.OAUTH_ACCESS_TTL_S,
    refreshTokenTtlS: config.OAUTH_REFRESH_TTL_S,
    trustProxy: config.TRUST_PROXY,
  });
  provider.on('server_error', (_ctx, err) => deps.log.error({ err }, 'oauth server error'));
  const use = new GrantUse(deps.db);
  const sweep = setInterval(() => void sweepExpired(deps.db).catch(() => {}), 3_600_000);
  sweep.unref();
  return {
    provider,
    issuer,
    /** An endpoint's resource URL and metadata URL, for its challenges and audience check. */
    endpoint: (path: string) => {
      const resource = resources[path] as string;
      return { resource, metadataUrl: resourceMetadataUrl(resource) };
    },
    findToken: async (token: string): Promise<OAuthAccessToken | undefined> => {
      const at = await provider.AccessToken.find(token);
      // oidc-provider allows its clock tolerance; the edge refuses a token the moment it expires.
      if (!at?.accountId || !at.exp || at.exp * 1000 <= Date.now()) return undefined;
      // For «last use» on the assistants page: a token is looked up here on the auth cache's misses.
      use.seen(at.grantId);
      return {
        accountId: at.accountId,
        scope: at.scope,
        aud: at.aud as string | string[],
        iat: at.iat ?? 0,
        exp: at.exp ?? 0,
      };
    },
    register: (app: EdgeFastify, audit: AuditLog) =>
      registerOAuth(app, {
        provider,
        bus: deps.bus,
        audit,
        throttle: signInThrottle(deps.redis, config),
        resources,
        origins,
        issuer,
        corsOrigins: config.OAUTH_CORS_ORIGINS,
        refreshTokenTtlS: config.OAUTH_REFRESH_TTL_S,
        onUserChanged: (user) => announceUserChanged(deps.bus, user),
      }),
    stop: () => clearInterval(sweep),
  };
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The origins the edge answers resource metadata for: its own, the configured ones, and for a
 * loopback PUBLIC_URL the other loopback spellings on the same port (a local client may use either).
 */
export function resourceOrigins(base: string, extra: string[]): string[] {
  const url = new URL(base);
  const out = new Set([url.origin, ...extra.map((o) => new URL(o).origin)]);
  if (LOOPBACK_NAMES.includes(url.hostname)) {
    for (const name of LOOPBACK_NAMES) out.add(`${url.protocol}//${name}${url.port ? `:${url.port}` : ''}`);
  }
  return [...out];
}
