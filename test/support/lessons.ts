import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Principal, publish_course, type Reply } from '@studium/contracts';
import { type Bus, migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { buildFromDir, publishBuilt } from '@studium/release';
import type { TestEnv } from '@studium/testing';
import {
  createApp as createLessons,
  MIGRATIONS as LESSONS_MIGRATIONS,
  type LessonsApp,
} from '../../services/lessons/src/app.ts';
import { LessonsConfig } from '../../services/lessons/src/config.ts';
import type { LessonsDb } from '../../services/lessons/src/db.ts';
import { controlled } from './stack.ts';

/** The real lessons service, started in this process against the test's NATS prefix and database. */
export async function startLessons(env: TestEnv, overrides: Record<string, string> = {}) {
  // DB_POOL_MAX as the service reads it (default here 8).
  const database = openDatabase<LessonsDb>(env.databaseUrl, 'lessons', Number(overrides.DB_POOL_MAX ?? 8));
  await migrate(database.pool, 'lessons', [PLATFORM_MIGRATIONS, LESSONS_MIGRATIONS]);
  const { nc, bus } = await env.serviceBus('lessons', { timeoutMs: 3000, log: env.log });
  const config = LessonsConfig.parse({ SUBJECT_PREFIX: env.prefix, CONTEXT_TIMEOUT_MS: '300', ...overrides });
  const start = () => createLessons({ bus, nc, database, log: env.log, config });
  return Object.assign(await controlled<LessonsApp>(start, database), { database, db: database.db });
}

/** The demo course maps. */
export const EXAMPLES = resolve(import.meta.dirname, '../../examples');

/** A curator principal for bus calls (the demo maps name this curator). */
export const CURATOR: Principal = {
  user: 'curator@demo.studium',
  full_name: 'Вера Кузнецова',
  roles: ['Course Creator'],
  scope: 'write',
  space: 'personal',
};

function unwrap<T>(reply: Reply<T>, what: string): T {
  if (!reply.ok) throw new Error(`${what}: ${reply.error.code} ${reply.error.message}`);
  return reply.data;
}

/** Builds a course map directory and publishes it as the active release, opening the course. */
export async function publishMap(bus: Bus, dir: string): Promise<{ course: string; release: string; version: number }> {
  const built = await buildFromDir(dir);
  if (!built.ok) throw new Error(`invalid map ${dir}: ${JSON.stringify(built.errors).slice(0, 500)}`);
  const published = unwrap(await publishBuilt(bus, built, { publisher: CURATOR.user }), 'publish');
  unwrap(await bus.request(publish_course, CURATOR, { course: published.course }), 'publish_course');
  return { course: published.course, release: published.release, version: published.version };
}

/** A copy of a demo map in a temporary directory, to edit before publishing a new release. */
export async function copyMap(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `map-${name}-`));
  await cp(resolve(EXAMPLES, name), dir, { recursive: true });
  return dir;
}

/** Replaces text in a file of a copied map (fails when the text is not there). */
export async function editMap(dir: string, file: string, from: string, to: string): Promise<void> {
  const path = join(dir, file);
  const text = await readFile(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file}: no "${from}"`);
  await writeFile(path, text.replace(from, to));
}

/** A student principal. */
export function studentOf(user: string, space = 'personal', fullName = 'Ученик'): Principal {
  return { user, full_name: fullName, roles: ['Student'], scope: 'write', space };
}
