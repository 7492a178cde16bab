import { ensureConsumer, ensureStream, openDatabase, streamNames } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv('platform-test-env');
});

afterAll(async () => {
  await env?.cleanup();
});

async function streamsOf(prefix: string): Promise<string[]> {
  const jsm = await env.nc.jetstreamManager();
  const names: string[] = [];
  for await (const s of jsm.streams.list()) if (s.config.name.includes(prefix)) names.push(s.config.name);
  return names.sort();
}

async function databaseExists(url: string): Promise<boolean> {
  const name = new URL(url).pathname.slice(1);
  const database = openDatabase(env.databaseUrl, 'public', 1);
  try {
    return (await database.pool.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await database.close();
  }
}

describe('createTestEnv', () => {
  it('gives each environment its own database and prefix', async () => {
    const other = await createTestEnv('platform-test-env-other');
    try {
      expect(other.prefix).not.toBe(env.prefix);
      expect(other.databaseUrl).not.toBe(env.databaseUrl);
      expect(await databaseExists(other.databaseUrl)).toBe(true);
    } finally {
      await other.cleanup();
    }
  });

  it('cleanup removes the streams, consumers and buckets of its prefix and drops its database, nothing else', async () => {
    const mine = await ensureStream(env.nc, env.prefix);
    const inner = await createTestEnv('platform-test-env-inner');
    const jsm = await ensureStream(inner.nc, inner.prefix);
    await ensureConsumer(jsm, inner.prefix, 'durable_one', ['evt.platformtest.x']);
    const js = inner.nc.jetstream();
    await js.views.kv(`${inner.prefix}_cache`);
    await js.views.os(`${inner.prefix}_files`);
    expect(await streamsOf(inner.prefix)).toEqual([
      `KV_${inner.prefix}_cache`,
      `OBJ_${inner.prefix}_files`,
      streamNames(inner.prefix).stream,
    ]);
    await inner.cleanup();
    expect(await streamsOf(inner.prefix)).toEqual([]);
    await expect(mine.consumers.info(streamNames(inner.prefix).stream, 'durable_one')).rejects.toThrow();
    expect(await databaseExists(inner.databaseUrl)).toBe(false);
    expect(await streamsOf(env.prefix)).toEqual([streamNames(env.prefix).stream]);
    expect(await databaseExists(env.databaseUrl)).toBe(true);
  });
});

describe('eventually', () => {
  it('returns the value once the check passes', async () => {
    let n = 0;
    expect(await eventually(async () => (++n < 3 ? Promise.reject(new Error('not yet')) : n), 1000, 5)).toBe(3);
  });

  it('rethrows the last failure after the deadline', async () => {
    await expect(eventually(async () => expect(1).toBe(2), 100, 10)).rejects.toThrow(/expected 1 to be 2/);
  });
});
