import { loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { ReportingConfig, SCHEMA } from './config.ts';

await runService({
  name: 'reporting',
  config: loadConfig(ReportingConfig),
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
});
