// Seeds the demo organization, people and tokens into a running deployment (docker compose run seed).
import { resolve } from 'node:path';
import {
  BaseConfig,
  ensureDatabase,
  loadConfig,
  migrate,
  natsOptions,
  openDatabase,
  PLATFORM_MIGRATIONS,
} from '@studium/platform';
import { connect } from 'nats';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { seedDemo, seedDemoPasswords } from './demo.ts';

const config = loadConfig(BaseConfig);
await ensureDatabase(config.DATABASE_URL);
const database = openDatabase<EnrollmentDb>(config.DATABASE_URL, 'enrollment', 2);
await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
const nc = await connect(natsOptions(config, 'seed'));
const home = resolve(import.meta.dirname, '..', '.studium');
const tokens = await seedDemo(database.db, resolve(home, 'demo-tokens.json'), { nc, prefix: config.SUBJECT_PREFIX });
// Web and OAuth sign-in passwords of the demo people who use the pages (kept across runs).
const passwords = await seedDemoPasswords(database.db, resolve(home, 'demo-passwords.json'));
console.log(JSON.stringify({ tokens, passwords }, null, 2));
await nc.drain();
await database.close();
