import { loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { CoursesConfig, SCHEMA } from './config.ts';

await runService({
  name: 'courses',
  config: loadConfig(CoursesConfig),
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
});
