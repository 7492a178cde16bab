import { createHash } from 'node:crypto';
import {
  decodePrincipalChanged,
  PRINCIPAL_CHANGED,
  type Principal,
  resolveToken,
  resolveUser,
} from '@studium/contracts';
import type { Bus } from '@studium/platform';
import type { Subscription } from 'nats';

/** The outcome of authenticating a request. */
export type AuthResult =
  | { ok: true; principal: Principal; tokenKey: string; oauth: boolean }
  | { ok: false; status: 401 | 403 | 503; reason: string };

interface Entry {
  principal: Principal;
  tokenExpiresAt: number | null;
  cachedUntil: number;
  /** An OAuth token's resource (audience); API tokens have none and are good at every endpoint. */
  audience?: string;
}

/** An OAuth access token as the authorization server stored it. */
export interface OAuthAccessToken {
  accountId: string;
  scope?: string;
  aud?: string | string[];
  iat: number;
  exp: number;
}

/** Finds OAuth access tokens (the authorization server's store); undefined when unknown or expired. */
export type OAuthTokenFinder = (token: string) => Promise<OAuthAccessToken | undefined>;

/** API tokens carry this prefix; any other bearer token is looked up as an OAuth access token. */
const API_TOKEN_PREFIX = 'stu_';

/** How the authenticator caches: resolved tokens (LRU, bounded) and unknown ones (short, bounded). */
export interface AuthCacheOptions {
  /** How long a resolved token is trusted without asking enrollment again; 0 caches nothing. */
  ttlMs: number;
  /** Most resolved tokens kept; the least recently used goes first. */
  maxEntries: number;
  /** How long a token enrollment did not accept is refused without asking again; 0 disables. */
  negativeTtlMs: number;
}

/**
 * Resolves bearer tokens through enrollment, with a short cache keyed by the token's hash.
 * Enrollment announces principal changes (space selected, token revoked, roles changed) on NATS,
 * and the cache drops that user's entries at once; the TTL bounds staleness if a message is lost.
 * The cache is a bounded LRU, so a flood of distinct valid tokens cannot grow it without end, and
 * a token enrollment refused is remembered briefly, so repeating a bad token costs no bus request.
 */
export class Authenticator {
  /** Map order is recency: a hit moves its entry to the end, eviction takes the first. */
  private readonly cache = new Map<string, Entry>();
  private readonly byUser = new Map<string, Set<string>>();
  /** Hashes of tokens enrollment refused, with when to ask again and why (insertion order = age). */
  private readonly unknown = new Map<string, { until: number; reason: string }>();
  private sub?: Subscription;
  /** Bumped by every change announcement: a resolve that overlapped one is not cached (it may be stale). */
  private generation = 0;

  constructor(
    private readonly bus: Bus,
    private readonly options: AuthCacheOptions,
    private readonly findOAuthToken?: OAuthTokenFinder,
  ) {}

  /** Resolved tokens held now (for tests and metrics). */
  get size(): number {
    return this.cache.size;
  }

  start(): void {
    this.sub = this.bus.nc.subscribe(this.bus.subject(PRINCIPAL_CHANGED), {
      callback: (_err, msg) => {
        const changed = decodePrincipalChanged(msg.data);
        if (changed) this.forgetUser(changed.user);
      },
    });
  }

  stop(): void {
    this.sub?.unsubscribe();
  }

  forgetUser(user: string): void {
    this.generation++;
    for (const key of this.byUser.get(user) ?? []) this.cache.delete(key);
    this.byUser.delete(user);
  }

  private drop(key: string): void {
    const entry = this.cache.get(key);
    if (!entry) return;
    this.cache.delete(key);
    const keys = this.byUser.get(entry.principal.user);
    keys?.delete(key);
    if (keys?.size === 0) this.byUser.delete(entry.principal.user);
  }

  private remember(key: string, entry: Entry): void {
    this.drop(key);
    this.cache.set(key, entry);
    const keys = this.byUser.get(entry.principal.user) ?? new Set<string>();
    keys.add(key);
    this.byUser.set(entry.principal.user, keys);
    while (this.cache.size > this.options.maxEntries) {
      const oldest = this.cache.keys().next().value as string;
      this.drop(oldest);
    }
  }

  private rememberUnknown(key: string, reason: string, now: number): void {
    if (this.options.negativeTtlMs <= 0) return;
    this.unknown.delete(key);
    this.unknown.set(key, { until: now + this.options.negativeTtlMs, reason });
    while (this.unknown.size > this.options.maxEntries) {
      this.unknown.delete(this.unknown.keys().next().value as string);
    }
  }

  /**
   * Resolves the bearer token of a request to `resource` (the endpoint's URL): API tokens through
   * enrollment, OAuth access tokens through the authorization server's store (refused unless issued
   * for this resource) and then enrollment for the user's principal and revocation.
   */
  async authenticate(header: string | undefined, resource?: string): Promise<AuthResult> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    if (!token) return { ok: false, status: 401, reason: 'missing bearer token' };
    const key = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.cachedUntil > now) {
      if (hit.tokenExpiresAt !== null && hit.tokenExpiresAt <= now) {
        this.drop(key);
        return { ok: false, status: 401, reason: 'token expired' };
      }
      if (hit.audience !== undefined && hit.audience !== resource) {
        return { ok: false, status: 401, reason: 'token issued for another resource' };
      }
      // Most recently used goes last.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return { ok: true, principal: hit.principal, tokenKey: key, oauth: hit.audience !== undefined };
    }
    if (hit) this.drop(key);
    const refused = this.unknown.get(key);
    if (refused) {
      if (refused.until > now) return { ok: false, status: 401, reason: refused.reason };
      this.unknown.delete(key);
    }
    const generation = this.generation;
    if (this.findOAuthToken && !token.startsWith(API_TOKEN_PREFIX)) {
      return this.authenticateOAuth(token, key, resource, now, generation);
    }
    let reply: Awaited<ReturnType<Bus['request']>>;
    try {
      // A read: retried once on another enrollment replica when the first does not answer in time.
      reply = await this.bus.request(resolveToken, null, { token }, { idempotent: true });
    } catch {
      return { ok: false, status: 503, reason: 'enrollment unavailable' };
    }
    if (!reply.ok) {
      this.rememberUnknown(key, reply.error.code, now);
      return { ok: false, status: 401, reason: reply.error.code };
    }
    const data = reply.data as { principal: Principal; expires_at: string | null };
    const entry: Entry = {
      principal: data.principal,
      tokenExpiresAt: data.expires_at ? Date.parse(data.expires_at) : null,
      cachedUntil: now + this.options.ttlMs,
    };
    if (this.options.ttlMs > 0 && this.options.maxEntries > 0 && generation === this.generation) {
      this.remember(key, entry);
    }
    return { ok: true, principal: data.principal, tokenKey: key, oauth: false };
  }

  private async authenticateOAuth(
    token: string,
    key: string,
    resource: string | undefined,
    now: number,
    generation: number,
  ): Promise<AuthResult> {
    let at: OAuthAccessToken | undefined;
    try {
      at = await this.findOAuthToken?.(token);
    } catch {
      return { ok: false, status: 503, reason: 'authorization store unavailable' };
    }
    if (!at) {
      this.rememberUnknown(key, 'token_invalid', now);
      return { ok: false, status: 401, reason: 'token_invalid' };
    }
    const audiences = Array.isArray(at.aud) ? at.aud : at.aud ? [at.aud] : [];
    if (!resource || !audiences.includes(resource)) {
      return { ok: false, status: 401, reason: 'token issued for another resource' };
    }
    const scopes = new Set((at.scope ?? '').split(' '));
    const scope = scopes.has('write') ? 'write' : scopes.has('read') ? 'read' : null;
    if (!scope) return { ok: false, status: 403, reason: 'insufficient_scope' };
    let reply: Awaited<ReturnType<Bus['request']>>;
    try {
      reply = await this.bus.request(resolveUser, null, { user: at.accountId, scope, issued_at: at.iat });
    } catch {
      return { ok: false, status: 503, reason: 'enrollment unavailable' };
    }
    if (!reply.ok) {
      this.rememberUnknown(key, reply.error.code, now);
      return { ok: false, status: 401, reason: reply.error.code };
    }
    const { principal } = reply.data as { principal: Principal };
    if (this.options.ttlMs > 0 && this.options.maxEntries > 0 && generation === this.generation) {
      this.remember(key, {
        principal,
        tokenExpiresAt: at.exp * 1000,
        cachedUntil: now + this.options.ttlMs,
        audience: resource,
      });
    }
    return { ok: true, principal, tokenKey: key, oauth: true };
  }
}
