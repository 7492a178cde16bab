// Issue 32.5: tracing is paid once. Without an exporter, a request's round trip (the hop over the
// bus, the served handler, its queries, the outbox publish of the event it wrote and the consumer
// that applies it) opens no span at all, and the caller's trace context still travels; with one,
// the same round trip is a trace of spans.
import { randomBytes } from 'node:crypto';
import { context, ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { defineOperation, ok } from '@studium/contracts';
import {
  addEvent,
  type Database,
  endpoint,
  ensureStream,
  type Relay,
  type RunningConsumer,
  setupTracing,
  startConsumer,
  startRelay,
  traceFields,
  tracer,
} from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import type { Service } from 'nats';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type EventDb, openEventSchema } from './support/event-schema.ts';

const SCHEMA = 'tracing_test';
const EVENT = 'evt.platformtest.traced';
const Write = defineOperation({
  subject: 'platformtest.traced_write',
  input: z.object({ note: z.string() }),
  output: z.object({ note: z.string() }),
});

let env: TestEnv;
let database: Database<EventDb>;
let service: Service;
let consumer: RunningConsumer;
/** The trace id each side saw while it worked, by the note of the call. */
const handlerSaw = new Map<string, string | undefined>();
const consumerSaw = new Map<string, string | undefined>();
const exporter = new InMemorySpanExporter();

/** Every span the platform opened since the spies were set (recording or not). */
const spies = () => ({
  startSpan: vi.spyOn(tracer, 'startSpan'),
  startActiveSpan: vi.spyOn(tracer, 'startActiveSpan'),
});
const made = (s: ReturnType<typeof spies>) => s.startSpan.mock.calls.length + s.startActiveSpan.mock.calls.length;

/** A relay for one test (its pool's commits wake it; `flush` drives it), stopped afterwards. */
let relay: Relay | null = null;
async function relayed(): Promise<Relay> {
  relay = await startRelay({
    nc: env.nc,
    pool: database.pool,
    schema: SCHEMA,
    prefix: env.prefix,
    log: env.log,
    intervalMs: 60_000,
  });
  return relay;
}

async function applied(note: string): Promise<void> {
  await eventually(async () => {
    const rows = await database.db.selectFrom('tally').select('note').where('note', '=', `consumed ${note}`).execute();
    expect(rows).toHaveLength(1);
  });
}

beforeAll(async () => {
  env = await createTestEnv('platform-tracing', { nats: 'open' });
  database = await openEventSchema(env, SCHEMA);
  await ensureStream(env.nc, env.prefix);
  service = await env.bus.serve('enrollment', [
    endpoint(Write, async (args) => {
      handlerSaw.set(args.note, traceFields().trace_id);
      await database.db.transaction().execute(async (trx) => {
        await trx.insertInto('tally').values({ event_id: 'call', note: args.note }).execute();
        await addEvent(trx, EVENT, { note: args.note });
      });
      return ok({ note: args.note });
    }),
  ]);
  consumer = await startConsumer<EventDb>({
    nc: env.nc,
    prefix: env.prefix,
    durable: 'traced',
    subjects: [EVENT],
    db: database.db,
    log: env.log,
    async handle(trx, event) {
      const note = (event.data as { note: string }).note;
      consumerSaw.set(note, traceFields().trace_id);
      await trx
        .insertInto('tally')
        .values({ event_id: event.id, note: `consumed ${note}` })
        .execute();
    },
  });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await relay?.stop();
  relay = null;
});

afterAll(async () => {
  await consumer?.stop().catch(() => {});
  await service?.stop().catch(() => {});
  await database?.close();
  await env?.cleanup();
  trace.disable();
});

describe('without an exporter', () => {
  it('a round trip opens no span, and the caller trace id still reaches the handler', async () => {
    await setupTracing('test', { env: {} });
    const r = await relayed();
    // The caller's context as the edge's tool call makes it without an exporter: ids, not sampled.
    const traceId = randomBytes(16).toString('hex');
    const caller = trace.setSpanContext(ROOT_CONTEXT, {
      traceId,
      spanId: randomBytes(8).toString('hex'),
      traceFlags: TraceFlags.NONE,
    });
    const s = spies();
    const reply = await context.with(caller, () => env.bus.request(Write, null, { note: 'off' }));
    expect(reply).toEqual({ ok: true, data: { note: 'off' } });
    await r.flush();
    await applied('off');
    expect(made(s)).toBe(0);
    expect(handlerSaw.get('off')).toBe(traceId);
    // An untraced call's event carries no context: the consumer works outside any trace.
    expect(consumerSaw.get('off')).toBeUndefined();
  });

  it('an event stored with a trace context is published and consumed in it, still with no span', async () => {
    // Written while exporting (a recorded call: the row keeps its traceparent), relayed after a
    // restart without the endpoint.
    await setupTracing('test', { exporter });
    const traceId = await trace.getTracer('test').startActiveSpan('writer', async (span) => {
      await database.db.transaction().execute((trx) => addEvent(trx, EVENT, { note: 'stored' }));
      span.end();
      return span.spanContext().traceId;
    });
    await setupTracing('test', { env: {} });
    const s = spies();
    const r = await relayed();
    await r.flush();
    await applied('stored');
    expect(made(s)).toBe(0);
    expect(consumerSaw.get('stored')).toBe(traceId);
  });
});

describe('with an exporter', () => {
  it('the same round trip is one trace: hop, handler, queries, publish and consume', async () => {
    await setupTracing('test', { exporter });
    exporter.reset();
    const r = await relayed();
    const s = spies();
    const traceId = await trace.getTracer('test').startActiveSpan('caller', async (span) => {
      await env.bus.request(Write, null, { note: 'on' });
      span.end();
      return span.spanContext().traceId;
    });
    await r.flush();
    await applied('on');
    expect(made(s)).toBeGreaterThan(0);
    expect(handlerSaw.get('on')).toBe(traceId);
    expect(consumerSaw.get('on')).toBe(traceId);
    const names = await eventually(async () => {
      const spans = exporter.getFinishedSpans().filter((x) => x.spanContext().traceId === traceId);
      const n = spans.map((x) => x.name);
      expect(n).toContain(`${env.prefix}.${EVENT} consume`);
      return n;
    });
    expect(names).toEqual(
      expect.arrayContaining([
        'caller',
        'platformtest.traced_write request',
        'platformtest.traced_write',
        'pg insert',
        `${EVENT} publish`,
      ]),
    );
  });
});
