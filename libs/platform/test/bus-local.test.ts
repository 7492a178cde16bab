import { defineOperation, ok, type Principal, refuse } from '@studium/contracts';
import { type Bus, createBus, endpoint, Failure } from '@studium/platform';
import { createTestEnv, EDGE_TRUST, SERVICE_TRUST, type TestEnv } from '@studium/testing';
import { connect, type NatsConnection, type Service } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

// Test-only contracts: the subjects exist only under this file's prefix.
const Echo = defineOperation({
  subject: 'localtest.echo',
  input: z.object({ n: z.number().int(), mode: z.string().optional() }),
  output: z.object({ n: z.number(), user: z.string().nullable(), at: z.string(), list: z.array(z.number()) }),
});
const Forwarded = defineOperation({
  subject: 'localtest.forwarded',
  input: z.object({}),
  output: z.object({ user: z.string().nullable() }),
});
// A schema whose own refinement throws (a bug in a contract): a 500 on both paths, never a rejection.
const Throwing = defineOperation({
  subject: 'localtest.throwing',
  input: z.object({}).refine(() => {
    throw new Error('a refinement bug');
  }),
  output: z.object({}),
});
const Relay = defineOperation({
  subject: 'localtest.relay',
  input: z.object({ to: z.enum(['echo', 'forwarded']), makeUp: z.boolean().optional() }),
  output: z.object({}).passthrough(),
});

const anna: Principal = { user: 'anna@t', full_name: 'Анна', roles: ['Student'], scope: 'write', space: 'personal' };

let env: TestEnv;
let service: Service;
/** What the Echo handler returned last (the caller's copy must not be it). */
let lastReply: { n: number; user: string | null; at: Date; list: number[] } | null = null;
let handledCalls = 0;
/** Requesters on connections of their own: `local` ones, and ones that always cross NATS. */
let localEdge: Bus;
let wireEdge: Bus;
let localNc: NatsConnection;
let wireNc: NatsConnection;

beforeAll(async () => {
  env = await createTestEnv('bus-local', { nats: 'open' });
  const served = createBus(env.nc, {
    prefix: env.prefix,
    timeoutMs: 2000,
    log: env.log,
    trust: SERVICE_TRUST,
    local: true,
  });
  service = await served.serve('enrollment', [
    endpoint(Echo, async (args, ctx) => {
      handledCalls++;
      if (args.mode === 'refuse') return refuse('not_enrolled', 'Вы не записаны на курс.');
      if (args.mode === 'fail') throw new Failure(409, 'busy here');
      if (args.mode === 'crash') throw new Error('a bug');
      if (args.mode === 'slow') await new Promise((r) => setTimeout(r, 800));
      const reply = { n: args.n, user: ctx.principal?.user ?? null, at: new Date(0), list: [args.n] };
      lastReply = reply;
      return ok(reply as unknown as z.infer<typeof Echo.output>);
    }),
    endpoint(Forwarded, async (_a, ctx) => ok({ user: ctx.principal?.user ?? null }), { forwarded: true }),
    endpoint(Throwing, async () => ok({})),
    endpoint(Relay, async (args, ctx) => {
      const who = args.makeUp && ctx.principal ? { ...ctx.principal } : ctx.principal;
      const reply =
        args.to === 'echo' ? await served.request(Echo, who, { n: 7 }) : await served.request(Forwarded, who, {});
      return ok(reply);
    }),
  ]);
  localNc = await connect({ servers: env.natsUrl });
  wireNc = await connect({ servers: env.natsUrl });
  const common = { prefix: env.prefix, timeoutMs: 300, log: env.log, trust: EDGE_TRUST };
  localEdge = createBus(localNc, { ...common, local: true });
  wireEdge = createBus(wireNc, common);
});

afterAll(async () => {
  await service?.stop().catch(() => {});
  await localNc?.close().catch(() => {});
  await wireNc?.close().catch(() => {});
  await env?.cleanup();
});

/** A request's outcome as a value: the reply, or the Failure's status and message. */
async function outcome(bus: Bus, run: (bus: Bus) => Promise<unknown>) {
  try {
    return { reply: await run(bus) };
  } catch (err) {
    if (err instanceof Failure) return { status: err.status, message: err.message };
    return { thrown: (err as Error).message };
  }
}

describe('in-process dispatch (BUS_LOCAL)', () => {
  it('answers every case exactly as the wire does: replies, refusals, failures, violations and timeouts', async () => {
    const cases: Array<[string, (bus: Bus) => Promise<unknown>, object]> = [
      ['reply', (b) => b.request(Echo, anna, { n: 1 }), { reply: { ok: true, data: { n: 1, user: 'anna@t' } } }],
      ['no principal', (b) => b.request(Echo, null, { n: 2 }), { reply: { ok: true, data: { user: null } } }],
      [
        'refusal',
        (b) => b.request(Echo, anna, { n: 3, mode: 'refuse' }),
        { reply: { ok: false, error: { code: 'not_enrolled' } } },
      ],
      ['failure', (b) => b.request(Echo, anna, { n: 4, mode: 'fail' }), { status: 409, message: 'busy here' }],
      ['crash', (b) => b.request(Echo, anna, { n: 5, mode: 'crash' }), { status: 500, message: 'internal error' }],
      ['invalid arguments', (b) => b.request(Echo, anna, { n: 1.5 } as never), { status: 417 }],
      ['timeout', (b) => b.request(Echo, anna, { n: 6, mode: 'slow' }), { status: 504 }],
      ['throwing schema', (b) => b.request(Throwing, anna, {}), { status: 500, message: 'internal error' }],
      [
        'forwarded',
        (b) => b.request(Relay, anna, { to: 'forwarded' }),
        { reply: { ok: true, data: { ok: true, data: { user: 'anna@t' } } } },
      ],
      // A received principal goes on only to endpoints that take forwarded callers.
      [
        'forwarded to a plain endpoint',
        (b) => b.request(Relay, anna, { to: 'echo' }),
        { status: 403, message: 'wrong_subject' },
      ],
      // A principal the service made up has no token: it is never sent, on either path.
      [
        'made up',
        (b) => b.request(Relay, anna, { to: 'forwarded', makeUp: true }),
        { status: 500, message: 'internal error' },
      ],
    ];
    for (const [name, run, expected] of cases) {
      const wire = await outcome(wireEdge, run);
      const local = await outcome(localEdge, run);
      expect(wire, name).toMatchObject(expected);
      expect(local, name).toEqual(wire);
    }
    // The reply crossed as JSON on both paths: the Date is its string, as on the wire.
    expect(await localEdge.request(Echo, anna, { n: 9 })).toEqual({
      ok: true,
      data: { n: 9, user: 'anna@t', at: '1970-01-01T00:00:00.000Z', list: [9] },
    });
    expect((await outcome(localEdge, (b) => b.request(Echo, anna, { n: 6, mode: 'slow' }))).status).toBe(504);
  });

  it('refuses an unsigned principal as the wire does: a service cannot claim a caller in-process either', async () => {
    const unsigned = createBus(localNc, { prefix: env.prefix, timeoutMs: 300, log: env.log, local: true });
    const before = handledCalls;
    await expect(unsigned.request(Echo, anna, { n: 1 })).rejects.toThrow(/cannot be sent/);
    expect(handledCalls).toBe(before);
  });

  it('skips NATS: a local requester whose connection is closed is still answered, a wire one is not', async () => {
    const nc = await connect({ servers: env.natsUrl });
    const local = createBus(nc, { prefix: env.prefix, timeoutMs: 300, log: env.log, trust: EDGE_TRUST, local: true });
    const wire = createBus(nc, { prefix: env.prefix, timeoutMs: 300, log: env.log, trust: EDGE_TRUST });
    await nc.close();
    const reply = await local.request(Echo, anna, { n: 11 });
    expect(reply).toMatchObject({ ok: true, data: { n: 11 } });
    // The caller's copy is not the handler's object.
    if (reply.ok) reply.data.list.push(99);
    expect(lastReply?.list).toEqual([11]);
    await expect(wire.request(Echo, anna, { n: 12 })).rejects.toMatchObject({ status: 503 });
  });

  /** A local service of its own prefix on `serverNc`, and a local requester whose connection is closed. */
  async function servedLocally(prefix: string, serverNc: NatsConnection) {
    const served = createBus(serverNc, { prefix, timeoutMs: 300, log: env.log, trust: SERVICE_TRUST, local: true });
    const svc = await served.serve('courses', [endpoint(Forwarded, async () => ok({ user: 'here' }))]);
    const nc = await connect({ servers: env.natsUrl });
    const local = createBus(nc, { prefix, timeoutMs: 300, log: env.log, trust: EDGE_TRUST, local: true });
    await nc.close();
    expect(await local.request(Forwarded, null, {})).toEqual({ ok: true, data: { user: 'here' } });
    return { svc, local };
  }

  it('forgets the endpoints of a stopped service', async () => {
    const { svc, local } = await servedLocally(`${env.prefix}s`, env.nc);
    await svc.stop();
    await expect(local.request(Forwarded, null, {})).rejects.toMatchObject({ status: 503 });
  });

  it('forgets the endpoints of a service that nats.js stopped itself, its connection closed', async () => {
    const serverNc = await connect({ servers: env.natsUrl });
    const { svc, local } = await servedLocally(`${env.prefix}c`, serverNc);
    await serverNc.close();
    await svc.stopped;
    await expect(local.request(Forwarded, null, {})).rejects.toMatchObject({ status: 503 });
  });
});
