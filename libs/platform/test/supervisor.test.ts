import {
  consumersReady,
  ensureConsumer,
  ensureStream,
  type RunningConsumer,
  streamNames,
  superviseConsumer,
} from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import type { ConsumerMessages, JetStreamManager } from 'nats';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// superviseConsumer on its own, with a loop of the test's making on a real durable: what any
// consumer (the platform's, reporting's batch loop) gets from it.
let env: TestEnv;
let jsm: JetStreamManager;
const running: RunningConsumer[] = [];
const SUBJECT = 'evt.platformtest.supervised';

beforeAll(async () => {
  env = await createTestEnv('platform-supervisor', { nats: 'open' });
  jsm = await ensureStream(env.nc, env.prefix);
});

afterAll(async () => {
  for (const c of running) await c.stop().catch(() => {});
  await env?.cleanup();
});

const publish = (note: string) => env.nc.jetstream().publish(streamNames(env.prefix).subject(SUBJECT), note);

/** Opens a real subscription on `durable`, failing while `failing()` says so. */
function opener(durable: string, failing: () => boolean) {
  let opened = 0;
  return {
    get opened() {
      return opened;
    },
    async open(): Promise<ConsumerMessages> {
      if (failing()) throw new Error('stream away');
      await ensureConsumer(jsm, env.prefix, durable, [SUBJECT]);
      const consumer = await env.nc.jetstream().consumers.get(streamNames(env.prefix).stream, durable);
      opened++;
      return consumer.consume({ max_messages: 16, abort_on_missing_resource: true });
    },
  };
}

describe('a supervised loop that throws', () => {
  it('retries opening with backoff, reports not ready until back, counts one restart, and takes the next message', async () => {
    const seen: string[] = [];
    let failOpen = false;
    const o = opener('supervised-throws', () => failOpen);
    const metrics = new Registry();
    const c = await superviseConsumer({
      name: 'supervised-throws',
      log: env.log,
      open: () => o.open(),
      async run(messages) {
        for await (const m of messages) {
          seen.push(m.string());
          m.ack();
          // A bug in the loop: it throws out of the iteration with the subscription still open.
          if (m.string() === 'boom') throw new Error('loop bug');
        }
      },
      restartDelayMs: 200,
      metrics,
    });
    running.push(c);
    await publish('one');
    await eventually(async () => expect(seen).toEqual(['one']));
    await consumersReady();

    failOpen = true;
    await publish('boom');
    await eventually(async () => expect(c.running).toBe(false), 5000, 10);
    await expect(consumersReady()).rejects.toThrow('supervised-throws');
    // Opening fails for a while (200, 400, 800 ms apart): still down, no restart counted.
    await new Promise((r) => setTimeout(r, 1000));
    expect(c.running).toBe(false);
    expect(c.restarts).toBe(0);
    failOpen = false;
    await eventually(async () => expect(c.running).toBe(true), 5000, 10);
    await consumersReady();
    expect(c.restarts).toBe(1);
    expect(o.opened).toBe(2);
    expect(await metrics.getSingleMetricAsString('studium_consumer_restarts_total')).toContain(
      'consumer="supervised-throws"} 1',
    );

    // The next message reaches the new subscription at once, not the one the loop threw out of
    // (where it would sit unacknowledged until ack_wait, 30 s).
    await publish('two');
    await eventually(async () => expect(seen).toEqual(['one', 'boom', 'two']), 5000);
  });

  it('stops while a restart is opening, without waiting on the subscription it opened', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let opening = 0;
    const o = opener('supervised-stop', () => false);
    const c = await superviseConsumer({
      name: 'supervised-stop',
      log: env.log,
      async open() {
        // The first open goes through; the restart's waits for the gate.
        if (opening++ > 0) await gate;
        return o.open();
      },
      // A loop that returns at once, without reading its subscription.
      async run() {},
      restartDelayMs: 50,
    });
    await eventually(async () => expect(opening).toBe(2));
    expect(c.running).toBe(false);
    await expect(consumersReady()).rejects.toThrow('supervised-stop');
    const stopping = c.stop();
    release();
    const outcome = await Promise.race([
      stopping.then(() => 'stopped'),
      new Promise((r) => setTimeout(() => r('hung'), 3000)),
    ]);
    expect(outcome).toBe('stopped');
    expect(o.opened).toBe(2);
    expect(c.restarts).toBe(0);
    // A stopped consumer no longer counts for readiness.
    await expect(consumersReady()).resolves.toBeUndefined();
  });
});
