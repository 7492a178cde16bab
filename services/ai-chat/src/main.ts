import { loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { AiChatConfig, SCHEMA } from './config.ts';

await runService({
  name: 'ai-chat',
  config: loadConfig(AiChatConfig),
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
  // Every answer writes its question and its answer; a burst of new answers must not queue on the
  // pool: a larger default than the others (DB_POOL_MAX overrides; see docs/operations.md).
  poolSize: 8,
});
