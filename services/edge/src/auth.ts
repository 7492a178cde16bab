import { createHash } from 'node:crypto';
import { decodePrincipalChanged, PRINCIPAL_CHANGED, type Principal, resolveToken } from '@studium/contracts';
import type { Bus } from '@studium/platform';
import type { Subscription } from 'nats';

/** The outcome of authenticating a request. */
export type AuthResult =
  | { ok: true; principal: Principal; tokenKey: string }
  | { ok: false; status: 401 | 503; reason: string };

interface Entry {
  principal: Principal;
  tokenExpiresAt: number | null;
  cachedUntil: number;
}

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

  async authenticate(header: string | undefined): Promise<AuthResult> {
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
      // Most recently used goes last.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return { ok: true, principal: hit.principal, tokenKey: key };
    }
    if (hit) this.drop(key);
    const refused = this.unknown.get(key);
    if (refused) {
      if (refused.until > now) return { ok: false, status: 401, reason: refused.reason };
      this.unknown.delete(key);
    }
    const generation = this.generation;
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
    return { ok: true, principal: data.principal, tokenKey: key };
  }
}
