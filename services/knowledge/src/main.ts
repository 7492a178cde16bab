import { loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { KnowledgeConfig, SCHEMA } from './config.ts';

await runService({
  name: 'knowledge',
  config: loadConfig(KnowledgeConfig),
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
});
