import { randomBytes } from 'node:crypto';
import type { Principal } from '@studium/contracts';
import {
  type Bus,
  type BusTrust,
  createBus,
  createLogger,
  dropDatabase,
  ensureDatabase,
  generateEdgeKeys,
  type Logger,
  principalSigner,
  principalVerifier,
  receivedPrincipal,
} from '@studium/platform';
import { Redis } from 'ioredis';
import { connect, type NatsConnection } from 'nats';

/**
 * The edge key pair of this test process. Set in the environment on import, so services a test
 * starts as child processes (inheriting it) verify what the test's buses sign.
 */
export const TEST_KEYS = (() => {
  if (!process.env.EDGE_SIGNING_KEY || !process.env.EDGE_PUBLIC_KEY) {
    const keys = generateEdgeKeys();
    process.env.EDGE_SIGNING_KEY = keys.privateKey;
    process.env.EDGE_PUBLIC_KEY = keys.publicKey;
  }
  return { privateKey: process.env.EDGE_SIGNING_KEY, publicKey: process.env.EDGE_PUBLIC_KEY };
})();

/** The edge's side (signs and verifies): for the test's own requests and an edge the test starts. */
export const EDGE_TRUST: BusTrust = {
  signer: principalSigner(TEST_KEYS.privateKey),
  verifier: principalVerifier(TEST_KEYS.publicKey),
};
/** A service's side (verifies only, so a principal it makes up cannot be sent). */
export const SERVICE_TRUST: BusTrust = { verifier: EDGE_TRUST.verifier };

/**
 * `principal` as a handler receives it from the edge (signed for `sub`, verified): for a test that
 * calls a service's own code directly where it passes the caller on over the bus.
 */
export function asReceived(principal: Principal, sub: string): Principal {
  const token = EDGE_TRUST.signer?.sign(principal, sub, Date.now() + 60_000) ?? '';
  const checked = EDGE_TRUST.verifier?.verify(token);
  if (!checked?.ok) throw new Error('the test key does not verify');
  return receivedPrincipal(checked.signed);
}

/** An isolated environment for one test file: its own database and its own subject prefix. */
export interface TestEnv {
  /** A fresh database on the local PostgreSQL, dropped by cleanup(). */
  databaseUrl: string;
  /** A fresh subject prefix: requests of this file never reach another file's services. */
  prefix: string;
  nc: NatsConnection;
  /** Signs principals as the edge does (see {@link EDGE_TRUST}). */
  bus: Bus;
  log: Logger;
  natsUrl: string;
  redisUrl: string;
  cleanup(): Promise<void>;
}

const PG = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Creates the environment; call cleanup() in afterAll. */
export async function createTestEnv(name = 'test'): Promise<TestEnv> {
  const id = randomBytes(5).toString('hex');
  const url = new URL(PG);
  url.pathname = `/studium_t_${id}`;
  const databaseUrl = url.toString();
  await ensureDatabase(databaseUrl);
  const prefix = `t${id}`;
  const log = createLogger(name, process.env.TEST_LOG_LEVEL ?? 'silent');
  const nc = await connect({ servers: NATS, name: `${name}-${id}` });
  const bus = createBus(nc, { prefix, timeoutMs: 3000, log, trust: EDGE_TRUST });
  const cleanups: Array<() => Promise<unknown>> = [];
  return {
    databaseUrl,
    prefix,
    nc,
    bus,
    log,
    natsUrl: NATS,
    redisUrl: REDIS,
    async cleanup() {
      for (const fn of cleanups.reverse()) await fn().catch(() => {});
      // Remove this prefix's streams (their consumers go with them), including KV and object store buckets named after it.
      const ours = new RegExp(`^(KV_|OBJ_)?${prefix}[_-]`);
      const jsm = await nc.jetstreamManager().catch(() => null);
      if (jsm) {
        for await (const s of jsm.streams.list()) {
          if (ours.test(s.config.name)) await jsm.streams.delete(s.config.name).catch(() => {});
        }
      }
      await nc.drain().catch(() => {});
      await dropDatabase(databaseUrl).catch(() => {});
      await dropRedisKeys(prefix).catch(() => {});
    },
  };
}

/**
 * Deletes the Redis keys of a prefix: BullMQ queues (`bull:<prefix>-…`) and the edge's rate-limit
 * and capability keys (`<prefix>:…`), so runs leave nothing behind.
 */
async function dropRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    for (const pattern of [`bull:${prefix}-*`, `${prefix}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}

/** Polls until the check passes or the deadline ends (for effects that arrive asynchronously). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000, stepMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, stepMs));
    }
  }
}
export * from './scripted-llm.ts';
