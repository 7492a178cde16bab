import {
  connectNats,
  createBus,
  createLogger,
  createMetrics,
  loadConfig,
  natsOptions,
  onShutdown,
  openHealth,
  portOf,
} from '@studium/platform';
import { createMailer } from './app.ts';
import { MailerConfig, releaseMailQueueName } from './config.ts';
import { busDeliveries } from './deliveries.ts';
import { createSender } from './sender.ts';

const config = loadConfig(MailerConfig);
const log = createLogger('mailer', config.LOG_LEVEL);
const checks: Record<string, () => Promise<unknown>> = {
  starting: () => Promise.reject(new Error('starting')),
};
const health = await openHealth(config, checks, createMetrics('mailer'), log);
// Deliveries are enrollment's (the truth): the mailer reads and closes them over the bus.
const nc = await connectNats(natsOptions(config, 'mailer'), log);
const bus = createBus(nc, { prefix: config.SUBJECT_PREFIX, timeoutMs: config.REQUEST_TIMEOUT_MS, log });
const sender = createSender({ smtpUrl: config.SMTP_URL, mailDir: config.MAIL_DIR });
const queueName = releaseMailQueueName(config.SUBJECT_PREFIX);
const mailer = createMailer({
  redisUrl: config.REDIS_URL,
  queueName,
  sender,
  deliveries: busDeliveries(bus, log, config.MAIL_REPORT_FOR_MS),
  from: config.MAIL_FROM,
  log,
  concurrency: config.MAIL_CONCURRENCY,
  stall: {
    lockDurationMs: config.MAIL_LOCK_MS,
    stalledIntervalMs: config.MAIL_STALLED_INTERVAL_MS,
    maxStalledCount: config.MAIL_MAX_STALLED,
  },
  stopTimeoutMs: config.MAIL_STOP_TIMEOUT_MS,
});
delete checks.starting;
Object.assign(checks, { redis: () => mailer.ping(), nats: () => nc.flush() });
log.info(
  {
    queue: queueName,
    transport: config.SMTP_URL ? 'smtp' : `files in ${config.MAIL_DIR}`,
    health: health ? portOf(health) : null,
  },
  'service started',
);

onShutdown(log, async () => {
  health?.close();
  await mailer.stop();
  sender.close();
  // Drain waits on the server: bounded, so an unreachable NATS does not hold the exit.
  await Promise.race([nc.drain(), new Promise((r) => setTimeout(r, 2_000))]).catch(() => {});
});
