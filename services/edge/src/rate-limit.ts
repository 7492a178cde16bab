import type { Redis } from 'ioredis';

/**
 * Fixed-window limit of tool calls per token per minute, in Redis so every edge replica counts
 * together. If Redis is unreachable the call is let through: the limit protects the platform,
 * and an outage of a cache must not stop lessons.
 */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly perMinute: number,
    private readonly prefix: string,
  ) {}

  /** True when the call may proceed. */
  async allow(tokenKey: string): Promise<boolean> {
    if (this.perMinute <= 0) return true;
    const window = Math.floor(Date.now() / 60_000);
    const key = `${this.prefix}:rl:${tokenKey}:${window}`;
    try {
      const [[, count]] = (await this.redis.multi().incr(key).expire(key, 120).exec()) as [[Error | null, number]];
      return count <= this.perMinute;
    } catch {
      return true;
    }
  }
}
