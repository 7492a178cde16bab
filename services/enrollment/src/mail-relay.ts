import { RELEASE_MAIL_QUEUE } from '@studium/contracts';
import { type Logger, startPump } from '@studium/platform';
import type { JobsOptions, Queue } from 'bullmq';
import type { MailOutboxRepository, MailRow } from './repositories/mail-outbox.repository.ts';

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
  /** An open delivery enqueued longer ago than this whose job is no longer alive is enqueued again. */
  redriveAfterMs: number;
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
/** Job states in which BullMQ will still run the job (a stalled active job goes back to waiting). */
const ALIVE = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`mail queue did not answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The BullMQ job id of a delivery's n-th re-drive; `#` keeps BullMQ's three `:`-parts. */
export function redriveJobId(row: Pick<MailRow, 'job_id' | 'redrives'>): string {
  return row.redrives ? `${row.job_id}#${row.redrives}` : row.job_id;
}

/**
 * Hands pending rows of `mail_outbox` to BullMQ with their deterministic jobIds and then marks them
 * enqueued; no transaction is open while Redis is awaited (see MailOutboxRepository.relayBatch).
 * A crash between the add and the mark re-adds the same jobIds, which BullMQ ignores; Redis being
 * away leaves the rows pending for the next pass.
 *
 * The same passes re-drive from the database: an open delivery (no outcome reported) enqueued more
 * than `redriveAfterMs` ago whose job is no longer alive in BullMQ (failed after its attempts or
 * its stalls, completed without a report, or lost with Redis) is enqueued again under a new job
 * id, so no failed or stalled job is the end of an e-mail.
 */
export function startMailRelay(opts: MailRelayOptions): MailRelay {
  const jobOptions: JobsOptions = {
    attempts: opts.attempts,
    backoff: { type: 'exponential', delay: opts.backoffMs },
    removeOnComplete: { age: opts.keepJobsS },
    removeOnFail: { age: opts.keepJobsS },
  };
  const add = (rows: MailRow[]) =>
    // Should Redis vanish mid-pass, BullMQ may wait for it: give up and retry on a later pass.
    withTimeout(
      opts.queue.addBulk(
        rows.map((r) => ({
          name: RELEASE_MAIL_QUEUE,
          data: { ...r.payload, delivery: r.job_id },
          opts: { ...jobOptions, jobId: redriveJobId(r) },
        })),
      ),
      ENQUEUE_TIMEOUT_MS,
    );

  async function redrive(): Promise<number> {
    let total = 0;
    for (;;) {
      const { seen, redriven } = await opts.mails.redriveBatch(BATCH, opts.redriveAfterMs, async (rows) => {
        const states = await withTimeout(
          Promise.all(rows.map((r) => opts.queue.getJobState(redriveJobId(r)))),
          ENQUEUE_TIMEOUT_MS,
        );
        const dead = rows.filter((_, i) => !ALIVE.has(states[i] as string));
        const again = dead.map((r) => ({ ...r, redrives: r.redrives + 1 }));
        if (again.length) {
          await add(again);
          opts.log.warn(
            { deliveries: again.map((r) => r.job_id), states: dead.map((r) => states[rows.indexOf(r)]) },
            'mail relay: open deliveries enqueued again',
          );
        }
        return dead;
      });
      total += redriven;
      if (seen < BATCH) return total;
    }
  }

  async function drain(): Promise<number> {
    if (!opts.queueReady()) return 0;
    let total = 0;
    for (;;) {
      const n = await opts.mails.relayBatch(BATCH, async (rows) => {
        await add(rows);
      });
      total += n;
      if (n < BATCH) break;
    }
    return total + (await redrive());
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
