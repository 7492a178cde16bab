import type { Logger } from './log.ts';

/** A single-flight worker loop: `kick` runs the work now, a timer runs it regularly. */
export interface Pump {
  /** Starts a pass now; during a pass, asks for one more after it (its input may have committed after the pass read). */
  kick(): Promise<number>;
  /** Waits for the running pass, then runs one; resolves with what it handled. */
  flush(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Runs `work` one pass at a time, on `kick`, on `flush` and every `intervalMs`. A failed pass is
 * logged and left to the next tick (retrying at once would spin while a dependency is away).
 * Shared by the event outbox relay and enrollment's mail relay.
 */
export function startPump(work: () => Promise<number>, opts: { intervalMs: number; log: Logger; name: string }): Pump {
  let running: Promise<number> | null = null;
  let again = false;
  let stopped = false;

  function pass(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let total = 0;
      do {
        again = false;
        try {
          total += await work();
        } catch (err) {
          opts.log.warn({ err }, `${opts.name}: pass failed, will retry`);
          break;
        }
      } while (again && !stopped);
      return total;
    })().finally(() => {
      running = null;
    });
    return running;
  }

  const timer = setInterval(() => {
    if (!stopped) void pass();
  }, opts.intervalMs);
  timer.unref();
  void pass();

  return {
    kick: () => (stopped ? Promise.resolve(0) : pass()),
    async flush() {
      if (running) await running;
      return pass();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await running;
    },
  };
}
