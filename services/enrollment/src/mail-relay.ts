import { RELEASE_MAIL_QUEUE } from '@studium/contracts';
import { type Logger, startPump } from '@studium/platform';
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

  const pump = startPump(drain, { intervalMs: opts.intervalMs, log: opts.log, name: 'mail relay' });
  return {
    kick() {
      void pump.kick();
    },
    flush: () => pump.flush(),
    stop: () => pump.stop(),
  };
}
