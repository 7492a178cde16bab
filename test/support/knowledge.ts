import { migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import type { TestEnv } from '@studium/testing';
import { KnowledgeAdmin } from '../../services/knowledge/src/admin.ts';
import {
  createApp as createKnowledge,
  MIGRATIONS as KNOWLEDGE_MIGRATIONS,
  type KnowledgeApp,
} from '../../services/knowledge/src/app.ts';
import { KnowledgeConfig } from '../../services/knowledge/src/config.ts';
import type { KnowledgeDb } from '../../services/knowledge/src/db.ts';
import { controlled } from './stack.ts';

/** The real knowledge service in this process, on the test's prefix and database; `overrides` change its configuration. */
export async function startKnowledge(env: TestEnv, overrides: Record<string, string> = {}) {
  const database = openDatabase<KnowledgeDb>(env.databaseUrl, 'knowledge', 6);
  await migrate(database.pool, 'knowledge', [PLATFORM_MIGRATIONS, KNOWLEDGE_MIGRATIONS]);
  const { nc, bus } = await env.serviceBus('knowledge', { timeoutMs: 5000, log: env.log });
  const config = KnowledgeConfig.parse({ SUBJECT_PREFIX: env.prefix, MEMBERSHIP_TTL_MS: '0', ...overrides });
  const start = () => createKnowledge({ bus, nc, database, log: env.log, config });
  const service = await controlled<KnowledgeApp>(start, database);
  const admin = new KnowledgeAdmin(database.db, service.app.kb.ts, env.log);
  return Object.assign(service, { database, db: database.db, admin });
}
