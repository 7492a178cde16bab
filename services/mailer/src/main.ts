import { createLogger, createMetrics, loadConfig, onShutdown, startHealthServer } from '@studium/platform';
import { createMailer } from './app.ts';
import { MailerConfig, releaseMailQueueName } from './config.ts';
import { createSender } from './sender.ts';

const config = loadConfig(MailerConfig);
const log = createLogger('mailer', config.LOG_LEVEL);
const sender = createSender({ smtpUrl: config.SMTP_URL, mailDir: config.MAIL_DIR });
const queueName = releaseMailQueueName(config.SUBJECT_PREFIX);
const mailer = createMailer({
  redisUrl: config.REDIS_URL,
  queueName,
  sender,
  from: config.MAIL_FROM,
  log,
  concurrency: config.MAIL_CONCURRENCY,
});
const health = config.HEALTH_PORT
  ? await startHealthServer(config.HEALTH_PORT, { redis: () => mailer.ping() }, createMetrics('mailer'))
  : null;
log.info(
  {
    queue: queueName,
    transport: config.SMTP_URL ? 'smtp' : `files in ${config.MAIL_DIR}`,
    health: config.HEALTH_PORT || null,
  },
  'service started',
);

onShutdown(log, async () => {
  health?.close();
  await mailer.stop();
  sender.close();
});
