import type { Redis } from 'ioredis';

/** The limiter's answer: the call may proceed, or wait `retryAfter` seconds. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfter: number };

/**
 * One atomic step of a replica: take a lease of calls from the token's window in Redis. The window
 * starts with the token's first lease and lasts ARGV[2] ms (Redis keeps the time, so replicas with
 * skewed clocks agree). A lease is an eighth of what is left, at most ARGV[3] calls and at least
 * one, so far from the limit a busy token costs one Redis step per several calls, and near it every
 * call asks: the calls leased and not yet made are the most the limit can be under-used by, never
 * over-used. Returns the calls granted (0: the window is full) and the window's time left in ms.
 */
const SCRIPT = `
local limit = tonumber(ARGV[1])
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if n >= limit then
  if ttl < 0 then ttl = tonumber(ARGV[2]) end
  return {0, ttl}
end
local grant = math.max(1, math.min(tonumber(ARGV[3]), math.floor((limit - n) / 8)))
redis.call('INCRBY', KEYS[1], grant)
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {grant, ttl}
`;

type WithCommand = Redis & {
  studiumRateLease(key: string, limit: number, windowMs: number, maxLease: number): Promise<[number, number]>;
};

interface TokenState {
  /** Calls leased to this replica and not yet made. */
  credits: number;
  /** When the window of the lease ends (local clock): credits after it are void. */
  until: number;
  /** The window is full until then: refused without asking Redis. */
  refusedUntil: number;
  /** The lease being taken now; concurrent calls wait for it instead of asking again. */
  pending?: Promise<'ok' | 'error'>;
}

/**
 * Calls per key per window (tool calls per token per minute), counted in Redis and shared by every
 * edge replica: a replica leases calls from the shared window (see {@link SCRIPT}) and spends
 * them locally, so the shared count never passes the limit however many replicas serve the key.
 * If Redis is unreachable, calls are let through: the limit protects the platform, and a cache
 * outage must not stop lessons.
 */
export class RateLimiter {
  private readonly redis: WithCommand;
  private readonly states = new Map<string, TokenState>();
  private calls = 0;

  constructor(
    redis: Redis,
    private readonly limit: number,
    private readonly prefix: string,
    private readonly windowMs = 60_000,
    private readonly maxLease = 8,
  ) {
    const r = redis as WithCommand;
    if (typeof r.studiumRateLease !== 'function') r.defineCommand('studiumRateLease', { numberOfKeys: 1, lua: SCRIPT });
    this.redis = r;
  }

  /** Counts the call and says whether it may proceed. */
  async check(key: string): Promise<RateDecision> {
    if (this.limit <= 0) return { allowed: true };
    if (++this.calls % 1024 === 0) this.sweep();
    let state = this.states.get(key);
    if (!state) {
      state = { credits: 0, until: 0, refusedUntil: 0 };
      this.states.set(key, state);
    }
    for (;;) {
      const now = Date.now();
      if (state.credits > 0 && state.until > now) {
        state.credits--;
        return { allowed: true };
      }
      if (state.refusedUntil > now) {
        return { allowed: false, retryAfter: Math.max(1, Math.ceil((state.refusedUntil - now) / 1000)) };
      }
      if (!state.pending) {
        const s = state;
        s.pending = this.lease(key, s).finally(() => {
          s.pending = undefined;
        });
      }
      if ((await state.pending) === 'error') return { allowed: true };
    }
  }

  private async lease(key: string, state: TokenState): Promise<'ok' | 'error'> {
    let reply: [number, number];
    try {
      reply = await this.redis.studiumRateLease(`${this.prefix}:rl:${key}`, this.limit, this.windowMs, this.maxLease);
    } catch {
      return 'error';
    }
    const [granted, ttlMs] = reply.map(Number) as [number, number];
    const until = Date.now() + Math.max(1, ttlMs);
    if (granted > 0) {
      state.credits = granted;
      state.until = until;
    } else {
      state.credits = 0;
      state.refusedUntil = until;
    }
    return 'ok';
  }

  /**
   * Seconds the key is known, on this replica, to stay over its limit (its window refused a lease
   * and no leased calls are left); 0 when it is not known to be. Counts nothing and asks no one:
   * for refusing a large body unread (body.ts) when its call would be refused anyway.
   */
  refusedFor(key: string): number {
    const s = this.states.get(key);
    const now = Date.now();
    if (this.limit <= 0 || !s || s.refusedUntil <= now || (s.credits > 0 && s.until > now)) return 0;
    return Math.max(1, Math.ceil((s.refusedUntil - now) / 1000));
  }

  /** Drops the state of keys whose window is over. */
  private sweep(): void {
    const now = Date.now();
    for (const [key, s] of this.states) {
      if (!s.pending && s.until <= now && s.refusedUntil <= now) this.states.delete(key);
    }
  }
}
