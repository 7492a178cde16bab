import { loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { EnrollmentConfig, SCHEMA } from './config.ts';

await runService({
  name: 'enrollment',
  config: loadConfig(EnrollmentConfig),
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
});
