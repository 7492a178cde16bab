import { loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { LessonsConfig, SCHEMA } from './config.ts';

await runService({
  name: 'lessons',
  config: loadConfig(LessonsConfig),
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
});
