import { defineOperation, ok } from '@studium/contracts';
import { createBus, DEADLINE_HEADER, endpoint, Failure } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { connect, headers, type NatsConnection, type Service } from 'nats';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

// Test-only contracts: the subjects exist only under this file's prefix.
const Slow = defineOperation({
  subject: 'limitstest.slow',
  input: z.object({ ms: z.number().int(), n: z.number().int().default(0) }),
  output: z.object({ n: z.number(), replica: z.string() }),
});

let env: TestEnv;
const services: Service[] = [];
const connections: NatsConnection[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A service process stand-in: its own connection and bus, serving Slow. */
async function replica(name: string, opts: { maxConcurrent?: number; maxQueued?: number; ms?: number } = {}) {
  const nc = await connect({ servers: env.natsUrl });
  connections.push(nc);
  const metrics = new Registry();
  const bus = createBus(nc, { prefix: env.prefix, timeoutMs: 3000, log: env.log, metrics, ...opts });
  const seen = { started: 0, finished: 0, running: 0, peak: 0, aborted: 0, deadlines: [] as (number | null)[] };
  const svc = await bus.serve('lessons', [
    endpoint(Slow, async ({ ms, n }, ctx) => {
      seen.started++;
      seen.running++;
      seen.peak = Math.max(seen.peak, seen.running);
      seen.deadlines.push(ctx.deadline ?? null);
      ctx.signal?.addEventListener('abort', () => seen.aborted++);
      await sleep(opts.ms ?? ms);
      seen.running--;
      seen.finished++;
      return ok({ n, replica: name });
    }),
  ]);
  services.push(svc);
  return { nc, bus, svc, seen, metrics };
}

beforeAll(async () => {
  env = await createTestEnv('platform-bus-limits', { nats: 'open' });
});

afterAll(async () => {
  for (const s of services) await s.stop().catch(() => {});
  for (const nc of connections) await nc.close().catch(() => {});
  await env?.cleanup();
});

describe('deadlines travel with the request', () => {
  it('hands the caller deadline to the handler and aborts its signal when the caller gives up', async () => {
    const r = await replica('deadline');
    const before = Date.now();
    const err = await env.bus.request(Slow, null, { ms: 600, n: 0 }, { timeoutMs: 200 }).catch((e) => e);
    expect(err).toBeInstanceOf(Failure);
    expect(err.status).toBe(504);
    await eventually(async () => expect(r.seen.aborted).toBe(1), 2000);
    const deadline = r.seen.deadlines[0] ?? 0;
    expect(deadline).toBeGreaterThanOrEqual(before + 200);
    expect(deadline).toBeLessThan(before + 400);
    await r.svc.stop();
  });

  it('does not work on a request that arrives after its deadline', async () => {
    const r = await replica('late');
    const h = headers();
    h.set(DEADLINE_HEADER, String(Date.now() - 10));
    const msg = await env.nc.request(env.bus.subject(Slow.subject), JSON.stringify({ args: { ms: 0 } }), {
      headers: h,
      timeout: 1000,
    });
    expect(msg.headers?.get('Nats-Service-Error-Code')).toBe('504');
    expect(r.seen.started).toBe(0);
    expect(r.bus.stats.expired).toBe(1);
    await r.svc.stop();
  });
});

describe('a service bounds the requests it works on', () => {
  it('runs at most maxConcurrent, queues maxQueued, refuses the rest with 503 at once', async () => {
    const r = await replica('bounded', { maxConcurrent: 2, maxQueued: 1 });
    const started = Date.now();
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_, n) =>
        env.bus.request(Slow, null, { ms: 300, n }, { timeoutMs: 2000 }).then(
          () => ({ ok: true, ms: Date.now() - started }),
          (e: Failure) => ({ ok: false, status: e.status, message: e.message, ms: Date.now() - started }),
        ),
      ),
    );
    const refused = outcomes.filter((o) => !o.ok);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(3);
    expect(refused).toHaveLength(2);
    for (const o of refused) {
      expect(o).toMatchObject({ status: 503, message: 'overloaded' });
      expect(o.ms).toBeLessThan(250);
    }
    expect(r.seen.peak).toBe(2);
    expect(r.bus.stats.overloaded).toBe(2);
    expect(await r.metrics.getSingleMetricAsString('studium_bus_requests_rejected_total')).toContain(
      'reason="overloaded"} 2',
    );
    await r.svc.stop();
  });

  it('drops a queued request whose caller gave up before a slot freed', async () => {
    const r = await replica('queued', { maxConcurrent: 1, maxQueued: 5 });
    const first = env.bus.request(Slow, null, { ms: 500, n: 1 }, { timeoutMs: 2000 });
    await sleep(50);
    const second = await env.bus.request(Slow, null, { ms: 0, n: 2 }, { timeoutMs: 200 }).catch((e) => e);
    expect(second).toBeInstanceOf(Failure);
    expect(second.status).toBe(504);
    expect((await first).ok).toBe(true);
    await sleep(100);
    expect(r.seen.started).toBe(1);
    expect(r.bus.stats.expired).toBe(1);
    await r.svc.stop();
  });
});

describe('idempotent requests fail over', () => {
  it('retries a read once on another replica when the first dies with the request', async () => {
    // The dying replica closes its connection on receipt, as a SIGKILLed process would; the
    // survivor is serving by the time the first attempt times out.
    const dying = await connect({ servers: env.natsUrl });
    connections.push(dying);
    let received = 0;
    let survivor: Promise<Awaited<ReturnType<typeof replica>>> | null = null;
    dying.subscribe(env.bus.subject(Slow.subject), {
      callback: () => {
        received++;
        void dying.close();
        survivor = replica('survivor');
      },
    });
    await dying.flush();
    const caller = createBus(env.nc, { prefix: env.prefix, timeoutMs: 3000, log: env.log, readAttemptTimeoutMs: 300 });
    const started = Date.now();
    const reply = await caller.request(Slow, null, { ms: 0, n: 7 }, { idempotent: true });
    const elapsed = Date.now() - started;
    expect(reply).toEqual({ ok: true, data: { n: 7, replica: 'survivor' } });
    expect(received).toBe(1);
    expect(caller.stats.retries).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1500);
    await (await (survivor as unknown as Promise<Awaited<ReturnType<typeof replica>>>)).svc.stop();
  });

  it('a hung first attempt costs a read only the attempt timeout; a write waits the whole timeout', async () => {
    const hung = await connect({ servers: env.natsUrl });
    connections.push(hung);
    // Only the hung replica serves the subject at first: every first attempt lands there.
    hung.subscribe(env.bus.subject(Slow.subject), { callback: () => {} });
    await hung.flush();
    const caller = createBus(env.nc, { prefix: env.prefix, timeoutMs: 1200, log: env.log, readAttemptTimeoutMs: 200 });
    let started = Date.now();
    const write = await caller.request(Slow, null, { ms: 0, n: 0 }).catch((e) => e);
    expect(write).toBeInstanceOf(Failure);
    expect(write.status).toBe(504);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1150);
    expect(caller.stats.retries).toBe(0);

    // The hung one leaves; the retry after 200 ms finds nobody hung.
    started = Date.now();
    const pending = caller.request(Slow, null, { ms: 0, n: 3 }, { idempotent: true }).catch((e) => e);
    await sleep(50);
    await hung.close();
    const r = await replica('after-hang');
    const read = await pending;
    expect(read).toEqual({ ok: true, data: { n: 3, replica: 'after-hang' } });
    expect(caller.stats.retries).toBe(1);
    expect(Date.now() - started).toBeLessThan(1000);
    await r.svc.stop();
  });
});

describe('stopping a service', () => {
  it('answers every request it took before its connection drains', async () => {
    const r = await replica('stopping');
    const calls = Array.from({ length: 5 }, (_, n) => env.bus.request(Slow, null, { ms: 300, n }, { timeoutMs: 3000 }));
    await eventually(async () => expect(r.seen.started).toBe(5), 2000, 10);
    await r.svc.stop();
    await r.nc.drain();
    const replies = await Promise.all(calls);
    expect(replies.every((x) => x.ok)).toBe(true);
    expect(r.seen.finished).toBe(5);
  });
});
