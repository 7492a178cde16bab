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

/**
 * Resolves bearer tokens through enrollment, with a short cache keyed by the token's hash.
 * Enrollment announces principal changes (space selected, token revoked, roles changed) on NATS,
 * and the cache drops that user's entries at once; the TTL bounds staleness if a message is lost.
 */
export class Authenticator {
  private readonly cache = new Map<string, Entry>();
  private readonly byUser = new Map<string, Set<string>>();
  private sub?: Subscription;
  /** Bumped by every change announcement: a resolve that overlapped one is not cached (it may be stale). */
  private generation = 0;

  constructor(
    private readonly bus: Bus,
    private readonly ttlMs: number,
  ) {}

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

  async authenticate(header: string | undefined): Promise<AuthResult> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    if (!token) return { ok: false, status: 401, reason: 'missing bearer token' };
    const key = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.cachedUntil > now) {
      if (hit.tokenExpiresAt !== null && hit.tokenExpiresAt <= now) {
        this.cache.delete(key);
        return { ok: false, status: 401, reason: 'token expired' };
      }
      return { ok: true, principal: hit.principal, tokenKey: key };
    }
    const generation = this.generation;
    let reply: Awaited<ReturnType<Bus['request']>>;
    try {
      // A read: retried once on another enrollment replica when the first does not answer in time.
      reply = await this.bus.request(resolveToken, null, { token }, { idempotent: true });
    } catch {
      return { ok: false, status: 503, reason: 'enrollment unavailable' };
    }
    if (!reply.ok) return { ok: false, status: 401, reason: reply.error.code };
    const data = reply.data as { principal: Principal; expires_at: string | null };
    const entry: Entry = {
      principal: data.principal,
      tokenExpiresAt: data.expires_at ? Date.parse(data.expires_at) : null,
      cachedUntil: now + this.ttlMs,
    };
    if (this.ttlMs > 0 && generation === this.generation) {
      this.cache.set(key, entry);
      const keys = this.byUser.get(data.principal.user) ?? new Set<string>();
      keys.add(key);
      this.byUser.set(data.principal.user, keys);
    }
    return { ok: true, principal: data.principal, tokenKey: key };
  }
}
