/**
 * Bounds the requests a service works on at once. Up to `max` run; up to `maxQueued` more wait
 * in arrival order for a slot until their deadline; anything beyond is refused at once, so an
 * overloaded replica answers quickly (and a read is retried elsewhere) instead of piling up work
 * whose callers will have gone.
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: Array<{ grant: (ok: boolean) => void; timer: NodeJS.Timeout }> = [];
  private readonly idleWaiters: Array<() => void> = [];

  constructor(
    readonly max: number,
    readonly maxQueued: number,
  ) {}

  /** Requests running now. */
  get running(): number {
    return this.active;
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Takes a slot: true at once or after waiting, 'full' when the queue is full, 'expired' when the
   * deadline (epoch ms) passed while waiting. A true result must be followed by {@link release}.
   */
  acquire(deadline: number): Promise<true | 'full' | 'expired'> {
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve(true);
    }
    if (this.waiting.length >= this.maxQueued) return Promise.resolve('full');
    return new Promise((resolve) => {
      const entry = {
        grant: (ok: boolean) => resolve(ok ? true : 'expired'),
        timer: setTimeout(
          () => {
            const i = this.waiting.indexOf(entry);
            if (i >= 0) this.waiting.splice(i, 1);
            entry.grant(false);
            this.settle();
          },
          Math.max(0, deadline - Date.now()),
        ),
      };
      this.waiting.push(entry);
    });
  }

  /** Gives a slot back: the longest waiting request takes it. */
  release(): void {
    const next = this.waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.grant(true);
      return;
    }
    this.active--;
    this.settle();
  }

  /** Resolves when nothing runs or waits (a stopping service waits for its answers to go out). */
  idle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private settle(): void {
    if (this.active !== 0 || this.waiting.length !== 0) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
