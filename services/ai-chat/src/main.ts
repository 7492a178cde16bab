import { loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { AiChatConfig, SCHEMA } from './config.ts';

await runService({
  name: 'ai-chat',
  config: loadConfig(AiChatConfig),
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
});
