import type { Redis } from 'ioredis';

interface Window {
  window: number;
  /** Calls counted here and not yet added to Redis. */
  pending: number;
  /** The shared count Redis returned at the last sync (all replicas). */
  shared: number;
  /** Calls being added to Redis right now. */
  inflight: number;
}

/**
 * Tool calls per token per minute, counted across every edge replica in Redis. Each replica
 * counts locally and adds its count to the shared window in Redis at most every `syncMs` (and at
 * once when the local view comes near the limit), so a busy token costs a few Redis commands a
 * second instead of one per call. The limit may be overshot by what replicas counted since their
 * last sync — at most a few calls per replica. If Redis is unreachable, calls are let through: the
 * limit protects the platform, and a cache outage must not stop lessons.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly perMinute: number,
    private readonly prefix: string,
    syncMs = 100,
  ) {
    this.timer = setInterval(() => void this.syncAll(), syncMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** True when the call may proceed. */
  async allow(tokenKey: string): Promise<boolean> {
    if (this.perMinute <= 0) return true;
    const window = Math.floor(Date.now() / 60_000);
    let w = this.windows.get(tokenKey);
    if (!w || w.window !== window) {
      w = { window, pending: 0, shared: 0, inflight: 0 };
      this.windows.set(tokenKey, w);
    }
    if (w.shared + w.inflight + w.pending >= this.perMinute) {
      // Near or over the limit: ask Redis for the exact shared count before refusing.
      await this.sync(tokenKey, w);
      if (w.shared + w.inflight + w.pending >= this.perMinute) return false;
    }
    w.pending++;
    // Close to the limit the local view must not lag: sync on every call from 90% on.
    if (w.shared + w.inflight + w.pending >= this.perMinute * 0.9) await this.sync(tokenKey, w);
    return true;
  }

  private async sync(tokenKey: string, w: Window): Promise<void> {
    // Move the calls to "in flight" before awaiting, so an overlapping sync never adds them twice.
    const add = w.pending;
    w.pending -= add;
    w.inflight += add;
    const key = `${this.prefix}:rl:${tokenKey}:${w.window}`;
    try {
      const res = (await this.redis.multi().incrby(key, add).expire(key, 120).exec()) as [[Error | null, number]];
      w.shared = Math.max(w.shared, Number(res[0][1]));
    } catch {
      // Redis away: keep counting locally; the next sync adds it.
      w.pending += add;
    } finally {
      w.inflight -= add;
    }
  }

  private async syncAll(): Promise<void> {
    const now = Math.floor(Date.now() / 60_000);
    await Promise.all(
      [...this.windows].map(async ([tokenKey, w]) => {
        if (w.window !== now && w.pending === 0) {
          this.windows.delete(tokenKey);
          return;
        }
        if (w.pending > 0) await this.sync(tokenKey, w);
      }),
    );
  }
}
