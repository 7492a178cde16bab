import { ReleaseMailJob } from '@studium/contracts';
import type { Logger } from '@studium/platform';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { isPermanentMailError, isValidAddress } from './domain/errors.ts';
import { composeReleaseMail } from './domain/release-mail.ts';
import type { MailSender } from './sender.ts';

/** What the mailer needs: where the queue is, how to send, and who the e-mails are from. */
export interface MailerOptions {
  redisUrl: string;
  queueName: string;
  sender: MailSender;
  from: string;
  log: Logger;
  concurrency?: number;
}

/** A running mailer. */
export interface Mailer {
  /** Answers when Redis does (readiness). */
  ping(): Promise<unknown>;
  /** Stops taking jobs, lets the active ones finish, closes Redis. */
  stop(): Promise<void>;
}

/**
 * The release e-mail worker. Retries (attempts, exponential backoff) are set on each job by the
 * producer; here a permanent failure (5xx reply, invalid address, malformed job) becomes an
 * UnrecoverableError so BullMQ fails the job at once instead of retrying it.
 */
export function createMailer(opts: MailerOptions): Mailer {
  // Workers block on Redis: ioredis must retry forever instead of failing commands.
  const connection = new Redis(opts.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (err) => opts.log.debug({ err }, 'mailer: redis error'));

  async function handle(job: Job): Promise<{ messageId: string; file?: string }> {
    const parsed = ReleaseMailJob.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError('malformed release mail job');
    const data = parsed.data;
    if (!isValidAddress(data.to)) throw new UnrecoverableError(`invalid e-mail address: ${data.to}`);
    const mail = composeReleaseMail(data);
    try {
      const sent = await opts.sender.send({ id: job.id ?? job.name, from: opts.from, to: data.to, ...mail });
      opts.log.info({ job: job.id, to: data.to, course: data.course, file: sent.file }, 'release e-mail sent');
      return sent;
    } catch (err) {
      if (isPermanentMailError(err)) throw new UnrecoverableError((err as Error).message);
      throw err;
    }
  }

  const worker = new Worker(opts.queueName, handle, { connection, concurrency: opts.concurrency ?? 4 });
  worker.on('error', (err) => opts.log.warn({ err }, 'mailer: worker error'));
  worker.on('failed', (job, err) => {
    const final = err instanceof UnrecoverableError || (job && job.attemptsMade >= (job.opts.attempts ?? 1));
    opts.log[final ? 'error' : 'warn'](
      { job: job?.id, attempts: job?.attemptsMade, err: err.message },
      final ? 'release e-mail failed for good' : 'release e-mail failed, will retry',
    );
  });

  return {
    ping: () => connection.ping(),
    async stop() {
      await worker.close();
      connection.disconnect();
    },
  };
}
