import { RELEASE_MAIL_QUEUE } from '@studium/contracts';
import type { Logger } from '@studium/platform';
import type { JobsOptions, Queue } from 'bullmq';
import type { MailOutboxRepository } from './repositories/mail-outbox.repository.ts';

/** Options of the relay from `mail_outbox` to the BullMQ queue of release e-mails. */
export interface MailRelayOptions {
  mails: MailOutboxRepository;
  queue: Queue;
  /** False while Redis is away: the pass is skipped instead of locking rows and waiting. */
  queueReady: () => boolean;
  log: Logger;
  /** Retries of a job: attempts and the first exponential backoff delay. */
  attempts: number;
  backoffMs: number;
  /** How long finished jobs stay in Redis (their jobIds keep de-duplicating meanwhile). */
  keepJobsS: number;
  intervalMs: number;
}

/** A running mail relay. */
export interface MailRelay {
  /** Starts a relay pass now (after a commit that queued e-mails). */
  kick(): void;
  /** Relays whatever is pending and resolves with how many rows were handed over. */
  flush(): Promise<number>;
  stop(): Promise<void>;
}

const BATCH = 100;
const ENQUEUE_TIMEOUT_MS = 5_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`mail queue did not answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Hands pending rows of `mail_outbox` to BullMQ with their deterministic jobIds and marks them
 * enqueued in the same transaction. A crash between the add and the commit re-adds the same
 * jobIds, which BullMQ ignores; Redis being away leaves the rows pending for the next pass.
 */
export function startMailRelay(opts: MailRelayOptions): MailRelay {
  const jobOptions: JobsOptions = {
    attempts: opts.attempts,
    backoff: { type: 'exponential', delay: opts.backoffMs },
    removeOnComplete: { age: opts.keepJobsS },
    removeOnFail: { age: opts.keepJobsS },
  };
  let running: Promise<number> | null = null;
  let stopped = false;

  async function drain(): Promise<number> {
    if (!opts.queueReady()) return 0;
    let total = 0;
    for (;;) {
      const n = await opts.mails.relayBatch(BATCH, async (rows) => {
        // Should Redis vanish mid-pass, BullMQ may wait for it while the rows stay locked: give up and retry later.
        await withTimeout(
          opts.queue.addBulk(
            rows.map((r) => ({ name: RELEASE_MAIL_QUEUE, data: r.payload, opts: { ...jobOptions, jobId: r.job_id } })),
          ),
          ENQUEUE_TIMEOUT_MS,
        );
      });
      total += n;
      if (n < BATCH) return total;
    }
  }

  let again = false;

  /** One pass at a time; a request during a pass runs one more (its rows may have committed after the select). */
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
          total += await drain();
        } catch (err) {
          // The next timer tick retries; looping now would spin while Redis is away.
          opts.log.warn({ err }, 'mail relay: enqueue failed, will retry');
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
  void pass();

  return {
    kick() {
      if (!stopped) void pass();
    },
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
