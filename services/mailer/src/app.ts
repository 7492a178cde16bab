import { ReleaseMailJob } from '@studium/contracts';
import type { Logger } from '@studium/platform';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Deliveries } from './deliveries.ts';
import { isPermanentMailError, isValidAddress } from './domain/errors.ts';
import { composeReleaseMail } from './domain/release-mail.ts';
import type { MailSender } from './sender.ts';

/** BullMQ's stall handling, set on purpose (see docs/operations.md, "Release e-mail"). */
export interface StallLimits {
  /** How long a job's lock lasts; the worker renews it every half of it while the job runs. */
  lockDurationMs: number;
  /** How often a worker looks for jobs whose lock expired (their worker died) and takes them back. */
  stalledIntervalMs: number;
  /** Stalls a job survives before BullMQ fails it; enrollment's relay re-drives it anyway. */
  maxStalledCount: number;
}

/** What the mailer needs: where the queue is, how to send, and who the e-mails are from. */
export interface MailerOptions {
  redisUrl: string;
  queueName: string;
  sender: MailSender;
  deliveries: Deliveries;
  from: string;
  log: Logger;
  concurrency?: number;
  stall?: StallLimits;
  /** How long `stop` waits for the jobs in hand (and Redis) before it closes anyway. */
  stopTimeoutMs?: number;
}

/** A running mailer. */
export interface Mailer {
  /** Answers when Redis does (readiness). */
  ping(): Promise<unknown>;
  /** Stops taking jobs, lets the active ones finish (up to stopTimeoutMs), closes Redis. */
  stop(): Promise<void>;
}

export const DEFAULT_STALL: StallLimits = { lockDurationMs: 15_000, stalledIntervalMs: 5_000, maxStalledCount: 3 };

/**
 * The release e-mail worker. Enrollment's delivery record is the truth: a delivery already closed
 * is not sent again, and "sent" is reported (and committed by enrollment) right after the SMTP
 * server accepted the message, before the job completes; a crash between the end of DATA and that
 * commit (the server's time to its 250 included) is the only way to a second e-mail, which has the
 * same Message-ID. Retries (attempts, exponential backoff) are set on
 * each job by the producer; a permanent failure (5xx, invalid address, malformed job) is reported
 * as rejected and becomes an UnrecoverableError, so BullMQ fails the job at once.
 */
export function createMailer(opts: MailerOptions): Mailer {
  // Workers block on Redis: ioredis must retry forever instead of failing commands.
  const connection = new Redis(opts.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (err) => opts.log.debug({ err }, 'mailer: redis error'));
  const stall = opts.stall ?? DEFAULT_STALL;

  async function reject(delivery: string | undefined, reason: string): Promise<never> {
    if (delivery) await opts.deliveries.settle(delivery, 'rejected', reason);
    throw new UnrecoverableError(reason);
  }

  async function handle(job: Job): Promise<{ messageId?: string; file?: string; skipped?: string }> {
    const parsed = ReleaseMailJob.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError('malformed release mail job');
    const data = parsed.data;
    // Jobs enqueued before deliveries were recorded carry no delivery: they are sent as before.
    const delivery = data.delivery;
    if (delivery) {
      const state = await opts.deliveries.state(delivery);
      if (state === 'sent' || state === 'rejected') {
        opts.log.info({ job: job.id, delivery, state }, 'release e-mail already settled, not sent again');
        return { skipped: state };
      }
    }
    if (!isValidAddress(data.to)) return reject(delivery, `invalid e-mail address: ${data.to}`);
    const mail = composeReleaseMail(data);
    let sent: { messageId: string; file?: string };
    try {
      sent = await opts.sender.send({ id: delivery ?? job.id ?? job.name, from: opts.from, to: data.to, ...mail });
    } catch (err) {
      if (isPermanentMailError(err)) return reject(delivery, (err as Error).message);
      throw err;
    }
    // The duplicate window: from the end of DATA (the server may keep the message from then on)
    // through the server's own time until its 250, to enrollment's commit of this report.
    if (delivery) await opts.deliveries.settle(delivery, 'sent');
    opts.log.info({ job: job.id, to: data.to, course: data.course, file: sent.file }, 'release e-mail sent');
    return sent;
  }

  const worker = new Worker(opts.queueName, handle, {
    connection,
    concurrency: opts.concurrency ?? 4,
    lockDuration: stall.lockDurationMs,
    stalledInterval: stall.stalledIntervalMs,
    maxStalledCount: stall.maxStalledCount,
  });
  worker.on('error', (err) => opts.log.warn({ err }, 'mailer: worker error'));
  worker.on('failed', (job, err) => {
    const final = err instanceof UnrecoverableError || (job && job.attemptsMade >= (job.opts.attempts ?? 1));
    opts.log[final ? 'error' : 'warn'](
      { job: job?.id, attempts: job?.attemptsMade, err: err.message },
      final ? 'release e-mail job failed for good' : 'release e-mail failed, will retry',
    );
  });

  return {
    ping: () => connection.ping(),
    async stop() {
      // Without Redis no job in hand can be completed anyway: nothing to wait for.
      if (connection.status !== 'ready') {
        opts.log.warn({ redis: connection.status }, 'mailer: Redis unreachable, closing without waiting');
        void worker.close(true).catch(() => {});
        connection.disconnect();
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        worker.close().then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), opts.stopTimeoutMs ?? 5_000);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        // Redis away or a job stuck: what is in hand stalls and is taken again (or re-driven) later.
        opts.log.warn('mailer: jobs or Redis did not finish in time, closing anyway');
        void worker.close(true).catch(() => {});
      }
      connection.disconnect();
    },
  };
}
