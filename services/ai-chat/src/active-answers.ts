import type { Redis } from 'ioredis';

/**
 * Answers in progress per teacher, counted across every replica in Redis: one sorted set per
 * teacher whose members are answers and whose scores are lease ends. A running answer renews its
 * lease; a crashed replica's answers fall out when their leases end. With Redis away, each replica
 * counts its own answers (the limit protects the model; an outage must not stop the chat).
 */
export class ActiveAnswers {
  private readonly local = new Map<string, Set<string>>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limit: number,
    private readonly leaseMs: number,
  ) {}

  private key(user: string): string {
    return `${this.prefix}:ai-chat:active:${user}`;
  }

  /** Takes a place for the answer; false when the teacher is at the limit. */
  async acquire(user: string, answer: string): Promise<boolean> {
    const mine = this.local.get(user) ?? new Set<string>();
    const now = Date.now();
    try {
      if (this.redis.status !== 'ready') throw new Error('redis not ready');
      const key = this.key(user);
      const res = (await this.redis
        .multi()
        .zremrangebyscore(key, '-inf', now)
        .zadd(key, now + this.leaseMs, answer)
        .zcard(key)
        .pexpire(key, this.leaseMs * 2)
        .exec()) as Array<[Error | null, unknown]>;
      if (Number(res[2][1]) > this.limit) {
        await this.redis.zrem(key, answer).catch(() => {});
        return false;
      }
    } catch {
      if (mine.size >= this.limit) return false;
    }
    mine.add(answer);
    this.local.set(user, mine);
    return true;
  }

  /** Extends the leases of this replica's answers (called every few seconds). */
  async renew(): Promise<void> {
    if (this.redis.status !== 'ready') return;
    const until = Date.now() + this.leaseMs;
    const multi = this.redis.multi();
    for (const [user, answers] of this.local) {
      for (const answer of answers) multi.zadd(this.key(user), 'XX', until, answer);
      multi.pexpire(this.key(user), this.leaseMs * 2);
    }
    await multi.exec().catch(() => {});
  }

  /** Gives the place back. */
  async release(user: string, answer: string): Promise<void> {
    const mine = this.local.get(user);
    mine?.delete(answer);
    if (mine && mine.size === 0) this.local.delete(user);
    if (this.redis.status === 'ready') await this.redis.zrem(this.key(user), answer).catch(() => {});
  }
}
