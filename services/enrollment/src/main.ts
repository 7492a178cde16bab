import { loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { EnrollmentConfig, SCHEMA } from './config.ts';

await runService({
  name: 'enrollment',
  config: loadConfig(EnrollmentConfig),
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
  // Closed deliveries only (sent or rejected): an open one is the truth that re-drives its e-mail.
  retain: [{ table: 'mail_outbox', column: 'settled_at' }],
});
