import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  natsOptions,
  principalSigner,
  principalVerifier,
  receivedPrincipal,
  replySigner,
  replyVerifier,
} from '@studium/platform';
import { Redis } from 'ioredis';
import { connect, type NatsConnection } from 'nats';
import type { NatsUser } from '../../../scripts/nats-auth.ts';
import { type OwnNats, startOwnNats } from '../../../scripts/nats-server.ts';

export type { NatsUser };

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

/** Enrollment's reply key pair of this test process (set in the environment the same way). */
export const TEST_REPLY_KEYS = (() => {
  if (!process.env.ENROLLMENT_SIGNING_KEY || !process.env.ENROLLMENT_PUBLIC_KEY) {
    const keys = generateEdgeKeys();
    process.env.ENROLLMENT_SIGNING_KEY = keys.privateKey;
    process.env.ENROLLMENT_PUBLIC_KEY = keys.publicKey;
  }
  return { privateKey: process.env.ENROLLMENT_SIGNING_KEY, publicKey: process.env.ENROLLMENT_PUBLIC_KEY };
})();

/** The edge's side (signs and verifies): for the test's own requests and an edge the test starts. */
export const EDGE_TRUST: BusTrust = {
  signer: principalSigner(TEST_KEYS.privateKey),
  verifier: principalVerifier(TEST_KEYS.publicKey),
  replyVerifier: replyVerifier(TEST_REPLY_KEYS.publicKey),
};
/** A service's side (verifies only, so a principal it makes up cannot be sent). */
export const SERVICE_TRUST: BusTrust = { verifier: EDGE_TRUST.verifier };
/** Enrollment's side: verifies principals and signs its identity replies. */
export const ENROLLMENT_TRUST: BusTrust = { ...SERVICE_TRUST, replySigner: replySigner(TEST_REPLY_KEYS.privateKey) };

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

/** An isolated environment for one test file: its own database, subject prefix and nats-server. */
export interface TestEnv {
  /** A fresh database on the local PostgreSQL, dropped by cleanup(). */
  databaseUrl: string;
  /** A fresh subject prefix (and the name of this file's queues and Redis keys). */
  prefix: string;
  /**
   * This file's own nats-server, with the deployment's users and subject permissions for `prefix`
   * (scripts/nats-auth.ts, the table of deploy/nats-auth.conf and k8s/nats.yaml) unless the
   * environment was made `{ nats: 'open' }`.
   */
  nats: OwnNats;
  /** Connected as the edge's NATS user: the test drives the services as the edge does. */
  nc: NatsConnection;
  /** Signs principals as the edge does (see {@link EDGE_TRUST}), on {@link nc}. */
  bus: Bus;
  log: Logger;
  natsUrl: string;
  redisUrl: string;
  /** A new connection as one deployable's NATS user (closed by cleanup). */
  connectAs(user: NatsUser, name?: string): Promise<NatsConnection>;
  /**
   * One shared connection per user, opened on first use: for a test that acts as a deployable now
   * and then (publishes its events, inspects the stream as the operator's CLI does).
   */
  as(user: NatsUser): Promise<NatsConnection>;
  /**
   * A service's side of the bus, as its deployable's NATS user: verifies principals and signs
   * none (`trust` overrides that). For a service a test starts in its own process.
   */
  serviceBus(
    user: NatsUser,
    opts?: { timeoutMs?: number; trust?: BusTrust; log?: Logger },
  ): Promise<{ nc: NatsConnection; bus: Bus }>;
  /** The environment of a child process that connects as `user` (NATS_URL, NATS_USER, NATS_PASSWORD). */
  natsEnv(user: NatsUser): Record<string, string>;
  /** The permission violations nats-server logged since the start (or since `from`, a log length). */
  violations(from?: number): Promise<string[]>;
  cleanup(): Promise<void>;
}

const PG = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Creates the environment; call cleanup() in afterAll. The bus runs as deployed: a nats-server of
 * this file's own with the generated users, each process connecting as the deployable it plays.
 * `nats: 'open'` runs that server without users, for tests about the library itself on made-up
 * subjects, or about an unauthenticated server.
 */
export async function createTestEnv(
  name = 'test',
  opts: { nats?: 'users' | 'open'; natsPasswords?: Record<NatsUser, string> } = {},
): Promise<TestEnv> {
  const id = randomBytes(5).toString('hex');
  const url = new URL(PG);
  url.pathname = `/studium_t_${id}`;
  const databaseUrl = url.toString();
  const prefix = `t${id}`;
  const dir = await mkdtemp(join(tmpdir(), 'studium-test-nats-'));
  const nats = await startOwnNats(dir, prefix, undefined, {
    users: opts.nats !== 'open',
    passwords: opts.natsPasswords,
  });
  const connections: NatsConnection[] = [];
  const connectAs = async (user: NatsUser, label = `${name}-${user}`) => {
    const nc = await connect(natsOptions(nats.envFor(user) as { NATS_URL: string }, `${label}-${id}`));
    connections.push(nc);
    return nc;
  };
  try {
    await ensureDatabase(databaseUrl);
  } catch (err) {
    await nats.stop();
    throw err;
  }
  const log = createLogger(name, process.env.TEST_LOG_LEVEL ?? 'silent');
  const nc = await connectAs('edge', name);
  const shared = new Map<NatsUser, Promise<NatsConnection>>([['edge', Promise.resolve(nc)]]);
  const as = (user: NatsUser) => {
    let c = shared.get(user);
    if (!c) {
      c = connectAs(user);
      shared.set(user, c);
    }
    return c;
  };
  const bus = createBus(nc, { prefix, timeoutMs: 3000, log, trust: EDGE_TRUST });
  return {
    databaseUrl,
    prefix,
    nats,
    nc,
    bus,
    log,
    natsUrl: nats.url,
    redisUrl: REDIS,
    connectAs,
    as,
    async serviceBus(user, o = {}) {
      const snc = await connectAs(user);
      return {
        nc: snc,
        bus: createBus(snc, {
          prefix,
          timeoutMs: o.timeoutMs ?? 3000,
          log: o.log ?? log,
          trust: o.trust ?? (user === 'enrollment' ? ENROLLMENT_TRUST : SERVICE_TRUST),
        }),
      };
    },
    natsEnv: (user) => nats.envFor(user),
    async violations(from = 0) {
      const text = (await readFile(nats.logFile)).subarray(from).toString('utf8');
      return text.split('\n').filter((l) => l.includes('Violation'));
    },
    async cleanup() {
      await Promise.all(connections.map((c) => c.close().catch(() => {})));
      // The server, its streams, consumers and buckets go together.
      await nats.stop().catch(() => {});
      await rm(dir, { recursive: true, force: true }).catch(() => {});
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

/** The deployable that publishes events of a type: `evt.lessons.lesson_passed` → lessons. */
export function producerOf(type: string): NatsUser {
  const [root, service] = type.split('.');
  return (root === 'evt' ? service : root) as NatsUser;
}
