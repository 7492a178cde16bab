import { loadConfig, runService } from '@studium/platform';
import { createApp, MIGRATIONS } from './app.ts';
import { KnowledgeConfig, SCHEMA } from './config.ts';

await runService({
  name: 'knowledge',
  config: loadConfig(KnowledgeConfig),
  schema: SCHEMA,
  migrations: MIGRATIONS,
  createApp,
  // A new PostgreSQL backend loads the Kazakh hunspell dictionary on its first to_tsvector: about
  // 90 ms of CPU on a quiet machine (280 ms under load), in the first search or write it serves.
  // Idle connections are kept for five minutes instead of pg's 10 s, so a quiet spell does not make
  // the next requests pay it again.
  poolIdleMs: 300_000,
});
