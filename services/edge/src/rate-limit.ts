import type { Redis } from 'ioredis';

/** The limiter's answer: the call may proceed, or wait `retryAfter` seconds. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfter: number };

/**
 * One atomic step per call: count it in the token's window and say whether it fits. The window
 * starts with the token's first call and lasts `windowMs` (Redis keeps the time, so replicas with
 * skewed clocks agree); the reply carries the time left, which becomes `retry_after`.
 */
const SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
if n > tonumber(ARGV[1]) then return {0, ttl} end
return {1, ttl}
`;

type WithCommand = Redis & {
  studiumRateLimit(key: string, limit: number, windowMs: number): Promise<[number, number]>;
};

/**
 * Tool calls per token per minute, counted in Redis by every edge replica in one atomic script per
 * call: the limit holds exactly however many replicas serve the token (one round trip to Redis per
 * call, well under a millisecond on the same network). If Redis is unreachable, calls are let
 * through: the limit protects the platform, and a cache outage must not stop lessons.
 */
export class RateLimiter {
  private readonly redis: WithCommand;

  constructor(
    redis: Redis,
    private readonly perMinute: number,
    private readonly prefix: string,
    private readonly windowMs = 60_000,
  ) {
    const r = redis as WithCommand;
    if (typeof r.studiumRateLimit !== 'function') r.defineCommand('studiumRateLimit', { numberOfKeys: 1, lua: SCRIPT });
    this.redis = r;
  }

  /** Counts the call and says whether it may proceed. */
  async check(tokenKey: string): Promise<RateDecision> {
    if (this.perMinute <= 0) return { allowed: true };
    let reply: [number, number];
    try {
      reply = await this.redis.studiumRateLimit(`${this.prefix}:rl:${tokenKey}`, this.perMinute, this.windowMs);
    } catch {
      return { allowed: true };
    }
    const [allowed, ttlMs] = reply;
    if (allowed === 1) return { allowed: true };
    return { allowed: false, retryAfter: Math.max(1, Math.ceil(Number(ttlMs) / 1000)) };
  }
}
