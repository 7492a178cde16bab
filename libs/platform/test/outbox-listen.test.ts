import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { addEvent, type Database, openDatabase, type Relay, startRelay } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventDb, openEventSchema } from './support/event-schema.ts';

const SCHEMA = 'outbox_listen_test';
let env: TestEnv;
/** Direct connection: the test's own writes. */
let direct: Database<EventDb>;
/** The relay's pool, through a proxy the test can cut and make refuse connections. */
let proxied: Database<EventDb>;
let relay: Relay;
let proxy: Server;
const sockets = new Set<Socket>();
let refusing = false;
let refused = 0;
const published: string[] = [];

/** A TCP proxy to PostgreSQL: the network between the relay and its database. */
function startProxy(target: URL): Promise<number> {
  proxy = createServer((client) => {
    if (refusing) {
      refused++;
      client.destroy();
      return;
    }
    const upstream = tcpConnect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve((proxy.address() as AddressInfo).port)));
}

beforeAll(async () => {
  env = await createTestEnv('platform-outbox-listen', { nats: 'open' });
  direct = await openEventSchema(env, SCHEMA);
  const url = new URL(env.databaseUrl);
  const port = await startProxy(new URL(env.databaseUrl));
  url.host = `127.0.0.1:${port}`;
  proxied = openDatabase<EventDb>(url.toString(), SCHEMA, 3);
  env.nc.subscribe(`${env.prefix}.evt.>`, { callback: (_err, msg) => published.push(msg.subject) });
  // A long poll interval: only NOTIFY (or the catch-up after listening again) makes it publish.
  relay = await startRelay({
    nc: env.nc,
    pool: proxied.pool,
    schema: SCHEMA,
    prefix: env.prefix,
    log: env.log,
    intervalMs: 60_000,
    listenRetryMs: 100,
  });
});

afterAll(async () => {
  await relay?.stop().catch(() => {});
  await proxied?.close().catch(() => {});
  proxy?.close();
  await direct?.close();
  await env?.cleanup();
});

describe('outbox relay LISTEN connection', () => {
  it('listens again after the connection is lost and several attempts fail, and is woken by commits', async () => {
    expect(relay.listening).toBe(true);
    refusing = true;
    for (const s of sockets) s.destroy();
    await eventually(async () => expect(relay.listening).toBe(false), 2000, 10);
    // The database stays unreachable through several attempts (backoff 100, 200, 400 ms …).
    await eventually(async () => expect(refused).toBeGreaterThanOrEqual(4), 10_000, 20);
    expect(relay.listening).toBe(false);
    // A commit while nobody listens: published once the relay is back, by its catch-up pass.
    const missed = 'evt.platformtest.while_away';
    await direct.db.transaction().execute((trx) => addEvent(trx, missed, {}));

    refusing = false;
    await eventually(async () => expect(relay.listening).toBe(true), 10_000, 20);
    await eventually(async () => expect(published).toContain(`${env.prefix}.${missed}`), 2000);

    const subject = 'evt.platformtest.after_outage';
    await direct.db.transaction().execute((trx) => addEvent(trx, subject, {}));
    await eventually(async () => expect(published).toContain(`${env.prefix}.${subject}`), 900);
  });

  it('returns every client it checked out to the pool', async () => {
    await relay.stop();
    // Failed attempts and the lost connection released their clients; stop released the last one.
    expect(proxied.pool.totalCount).toBe(proxied.pool.idleCount);
    expect(proxied.pool.waitingCount).toBe(0);
    expect(relay.listening).toBe(false);
  });
});
