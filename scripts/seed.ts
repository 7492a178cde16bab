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
import { seedDemo } from './demo.ts';

const config = loadConfig(BaseConfig);
await ensureDatabase(config.DATABASE_URL);
const database = openDatabase<EnrollmentDb>(config.DATABASE_URL, 'enrollment', 2);
await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
const nc = await connect(natsOptions(config, 'seed'));
const file = resolve(import.meta.dirname, '..', '.studium', 'demo-tokens.json');
console.log(JSON.stringify(await seedDemo(database.db, file, { nc, prefix: config.SUBJECT_PREFIX }), null, 2));
await nc.drain();
await database.close();
