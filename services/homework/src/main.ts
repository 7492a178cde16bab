import { loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { HomeworkConfig, SCHEMA } from './config.ts';

await runService({
  name: 'homework',
  config: loadConfig(HomeworkConfig),
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
});
