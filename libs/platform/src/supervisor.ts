import type { ConsumerMessages } from 'nats';
import type { Registry } from 'prom-client';
import type { Check } from './health.ts';
import type { Logger } from './log.ts';
import { platformMetrics } from './metrics.ts';

/** A running durable consumer. */
export interface RunningConsumer {
  /** True while the loop takes messages; false while it restarts. */
  readonly running: boolean;
  /** How many times the loop ended on its own and was restarted. */
  readonly restarts: number;
  stop(): Promise<void>;
}

export interface SupervisorOptions {
  /** The consumer's name (its durable) in logs, readiness and the restart counter. */
  name: string;
  log: Logger;
  /**
   * Opens a subscription, creating or updating the durable; called at start and at each restart.
   * Pass `abort_on_missing_resource: true` to `consume`: without it a deleted durable leaves the
   * loop waiting forever, silently.
   */
  open(): Promise<ConsumerMessages>;
  /** Takes the messages of one subscription until it ends (or throws); settles only after the last one is handled. */
  run(messages: ConsumerMessages): Promise<void>;
  /** First delay before restarting a loop that ended; doubles while restarts fail, up to 30 s (default 1000). */
  restartDelayMs?: number;
  /** Registry for `studium_consumer_restarts_total`. */
  metrics?: Registry;
}

/** Every consumer of this process that has not been stopped (for readiness). */
const live = new Map<RunningConsumer, string>();

/**
 * A readiness check: fails, naming them, while any consumer of this process is restarting its
 * loop. `runService` adds it to `/readyz` as `consumers`.
 */
export const consumersReady: Check = async () => {
  const down = [...live].filter(([c]) => !c.running).map(([, name]) => name);
  if (down.length) throw new Error(`consumers restarting: ${down.join(', ')}`);
};

const MAX_RESTART_DELAY_MS = 30_000;

/**
 * Runs a consumer loop and keeps it running: a loop that ends or throws without `stop()` (durable
 * deleted, stream gone, a bug in the loop) is opened again after `restartDelayMs`, doubling while
 * opening fails, and counted in `studium_consumer_restarts_total`; `consumersReady` fails
 * meanwhile. Both the platform's consumers and reporting's batch consumer run under it.
 */
export async function superviseConsumer(opts: SupervisorOptions): Promise<RunningConsumer> {
  const restartDelayMs = opts.restartDelayMs ?? 1000;
  const metrics = opts.metrics ? platformMetrics(opts.metrics) : null;
  let stopped = false;
  let messages: ConsumerMessages | null = await opts.open();
  let wake: (() => void) | null = null;
  const state: { running: boolean; restarts: number; stop(): Promise<void> } = {
    running: true,
    restarts: 0,
    async stop() {
      stopped = true;
      live.delete(state);
      wake?.();
      // Not `close()`: it settles only once the iterator is read to its end, which a loop that
      // is not reading (or has thrown out of it) never does; `done` waits for the loop instead.
      messages?.stop();
      await done;
    },
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function supervise(): Promise<void> {
    for (;;) {
      try {
        if (messages) await opts.run(messages);
      } catch (err) {
        opts.log.error({ err, durable: opts.name }, 'consumer loop failed');
      }
      if (stopped) return;
      state.running = false;
      // The subscription may still be open when `run` threw or returned early: end it, or it keeps pulling.
      messages?.stop();
      messages = null;
      opts.log.error({ durable: opts.name }, 'consumer loop ended, restarting');
      let delay = restartDelayMs;
      while (!stopped && !messages) {
        await pause(delay);
        if (stopped) return;
        try {
          messages = await opts.open();
        } catch (err) {
          opts.log.warn({ err, durable: opts.name }, 'consumer restart failed, will retry');
          delay = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
        }
      }
      if (stopped) {
        messages?.stop();
        return;
      }
      state.restarts++;
      metrics?.consumerRestarts.labels(opts.name).inc();
      state.running = true;
      opts.log.info({ durable: opts.name, restarts: state.restarts }, 'consumer restarted');
    }
  }
  const done = supervise();
  live.set(state, opts.name);
  return state;
}

/**
 * One consumer made of several supervised loops (a consumer's durables, one per subject, on NATS
 * before 2.10): running only while all are, restarts summed, `stop()` stops them all. Readiness
 * still names the loop that is down.
 */
export function allOf(parts: RunningConsumer[]): RunningConsumer {
  return {
    get running() {
      return parts.every((p) => p.running);
    },
    get restarts() {
      return parts.reduce((n, p) => n + p.restarts, 0);
    },
    async stop() {
      await Promise.all(parts.map((p) => p.stop()));
    },
  };
}
