import { loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { EnrollmentConfig, SCHEMA } from './config.ts';

await runService({
  name: 'enrollment',
  config: loadConfig(EnrollmentConfig),
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
  // Mail rows handed to BullMQ: their job ids de-duplicate only while BullMQ keeps the jobs anyway.
  retain: [{ table: 'mail_outbox', column: 'enqueued_at' }],
});
