import { ensureConsumer, ensureStream, openDatabase, streamNames } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { connect, ErrorCode, type NatsConnection, type NatsError } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv('platform-test-env', { nats: 'open' });
});

afterAll(async () => {
  await env?.cleanup();
});

async function databaseExists(url: string): Promise<boolean> {
  const name = new URL(url).pathname.slice(1);
  const database = openDatabase(env.databaseUrl, 'public', 1);
  try {
    return (await database.pool.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await database.close();
  }
}

/** Whether a publish on `nc` is refused by the server's permissions. */
async function refused(nc: NatsConnection, subject: string): Promise<boolean> {
  const err = await nc.request(subject, '', { timeout: 2000 }).then(
    () => null,
    (e: NatsError) => e,
  );
  return err?.code === ErrorCode.PermissionsViolation;
}

describe('createTestEnv', () => {
  it('gives each environment its own database, prefix and nats-server', async () => {
    const other = await createTestEnv('platform-test-env-other', { nats: 'open' });
    try {
      expect(other.prefix).not.toBe(env.prefix);
      expect(other.databaseUrl).not.toBe(env.databaseUrl);
      expect(other.natsUrl).not.toBe(env.natsUrl);
      expect(await databaseExists(other.databaseUrl)).toBe(true);
    } finally {
      await other.cleanup();
    }
  });

  it('runs the bus as deployed by default: the test is the edge, each deployable its own NATS user', async () => {
    const users = await createTestEnv('platform-test-env-users');
    try {
      // No credentials: refused at the door.
      await expect(connect({ servers: users.natsUrl, reconnect: false })).rejects.toThrow(/Authorization/i);
      // The edge may call a tool subject but not publish another service's events.
      expect(await refused(users.nc, `${users.prefix}.evt.lessons.lesson_passed`)).toBe(true);
      expect(await refused(users.nc, `${users.prefix}.lessons.start_lesson`)).toBe(false);
      // A service as its own user: its events yes, another's no; the operator manages the stream.
      const lessons = await users.connectAs('lessons');
      expect(await refused(lessons, `${users.prefix}.evt.courses.course_published`)).toBe(true);
      await ensureStream(await users.as('lessons'), users.prefix);
      const jsm = await (await users.as('operator')).jetstreamManager();
      expect((await jsm.streams.info(streamNames(users.prefix).stream)).config.name).toBe(
        streamNames(users.prefix).stream,
      );
      expect((await users.violations()).join('\n')).toContain('User "edge"');
    } finally {
      await users.cleanup();
    }
  });

  it('cleanup stops its nats-server (streams and all) and drops its database, nothing else', async () => {
    const mine = await ensureStream(env.nc, env.prefix);
    const inner = await createTestEnv('platform-test-env-inner', { nats: 'open' });
    const jsm = await ensureStream(inner.nc, inner.prefix);
    await ensureConsumer(jsm, inner.prefix, 'durable_one', ['evt.platformtest.x']);
    await inner.cleanup();
    await expect(connect({ servers: inner.natsUrl, reconnect: false })).rejects.toThrow();
    expect(await databaseExists(inner.databaseUrl)).toBe(false);
    expect((await mine.streams.info(streamNames(env.prefix).stream)).config.name).toBe(streamNames(env.prefix).stream);
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
