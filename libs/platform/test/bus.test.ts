import { defineOperation, ok, type Principal, refuse } from '@studium/contracts';
import { createBus, endpoint, Failure } from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { connect, type Service } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

// Test-only contracts: the subjects exist only under this file's prefix.
const Echo = defineOperation({
  subject: 'platformtest.echo',
  input: z.object({ text: z.string(), mode: z.enum(['ok', 'refuse', 'forbid', 'crash', 'slow']).default('ok') }),
  output: z.object({ text: z.string(), user: z.string().nullable() }),
});
const Who = defineOperation({
  subject: 'platformtest.who',
  input: z.object({ n: z.number().int() }),
  output: z.object({ replica: z.string(), n: z.number() }),
});
const Closing = defineOperation({ subject: 'platformtest.closing', input: z.object({}), output: z.object({}) });
const Nobody = defineOperation({ subject: 'platformtest.nobody', input: z.object({}), output: z.object({}) });

const principal: Principal = {
  user: 'u@test',
  full_name: 'Тест',
  roles: ['Student'],
  scope: 'write',
  space: 'personal',
};
const SLOW_MS = 1500;

let env: TestEnv;
const services: Service[] = [];

beforeAll(async () => {
  env = await createTestEnv('platform-bus', { nats: 'open' });
  services.push(
    await env.bus.serve('enrollment', [
      endpoint(Echo, async (args, ctx) => {
        if (args.mode === 'refuse') return refuse('nothing_here', 'Здесь ничего нет', { limit: 3 });
        if (args.mode === 'forbid') throw new Failure(403);
        if (args.mode === 'crash') return Promise.reject(new Error('database is gone'));
        if (args.mode === 'slow') await new Promise((r) => setTimeout(r, SLOW_MS));
        return ok({ text: args.text, user: ctx.principal?.user ?? null });
      }),
    ]),
  );
});

afterAll(async () => {
  for (const s of services) await s.stop().catch(() => {});
  await env?.cleanup();
});

describe('bus request/reply', () => {
  it('answers a served endpoint with {ok:true,data} and passes the principal', async () => {
    const reply = await env.bus.request(Echo, principal, { text: 'привет', mode: 'ok' });
    expect(reply).toEqual({ ok: true, data: { text: 'привет', user: 'u@test' } });
    const anonymous = await env.bus.request(Echo, null, { text: 'x', mode: 'ok' });
    expect(anonymous).toEqual({ ok: true, data: { text: 'x', user: null } });
  });

  it('passes a refusal value through unchanged', async () => {
    const reply = await env.bus.request(Echo, principal, { text: 'x', mode: 'refuse' });
    expect(reply).toEqual({ ok: false, error: { code: 'nothing_here', message: 'Здесь ничего нет', limit: 3 } });
  });

  it('turns a thrown Failure into a Failure with the same status at the requester', async () => {
    const err = await env.bus.request(Echo, principal, { text: 'x', mode: 'forbid' }).catch((e) => e);
    expect(err).toBeInstanceOf(Failure);
    expect(err.status).toBe(403);
  });

  it('answers 500 when an async handler rejects with an ordinary error (never silence)', async () => {
    const started = Date.now();
    const err = await env.bus.request(Echo, principal, { text: 'x', mode: 'crash' }).catch((e) => e);
    expect(err).toBeInstanceOf(Failure);
    expect(err.status).toBe(500);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('answers 417 to arguments that fail the schema', async () => {
    const err = await env.bus
      .request(Echo, principal, { text: 42 } as unknown as { text: string; mode: 'ok' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(Failure);
    expect(err.status).toBe(417);
    expect(err.message).toContain('text');
  });

  it('answers 417 to a body that is not JSON', async () => {
    const msg = await env.nc.request(env.bus.subject(Echo.subject), new TextEncoder().encode('{not json'));
    expect(msg.headers?.get('Nats-Service-Error-Code')).toBe('417');
  });

  it('answers 417 to JSON that is not a request object (null, a number, an array)', async () => {
    for (const body of ['null', '42', '[]']) {
      const msg = await env.nc.request(env.bus.subject(Echo.subject), new TextEncoder().encode(body));
      expect(msg.headers?.get('Nats-Service-Error-Code')).toBe('417');
    }
  });

  it('fails fast with 503 when nobody serves the subject', async () => {
    const started = Date.now();
    const err = await env.bus.request(Nobody, principal, {}, { timeoutMs: 3000 }).catch((e) => e);
    expect(err).toBeInstanceOf(Failure);
    expect(err.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('fails with 504 after about the timeout when the handler is slower', async () => {
    const started = Date.now();
    const err = await env.bus.request(Echo, principal, { text: 'x', mode: 'slow' }, { timeoutMs: 300 }).catch((e) => e);
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(Failure);
    expect(err.status).toBe(504);
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(SLOW_MS);
  });
});

describe('bus replicas and prefixes', () => {
  it('lets two replicas of one service share requests through the queue group', async () => {
    const seen: Record<string, number[]> = { a: [], b: [] };
    for (const replica of ['a', 'b']) {
      services.push(
        await env.bus.serve('lessons', [
          endpoint(Who, async ({ n }) => {
            seen[replica].push(n);
            return ok({ replica, n });
          }),
        ]),
      );
    }
    const replies = await Promise.all(Array.from({ length: 60 }, (_, n) => env.bus.request(Who, null, { n })));
    expect(replies.every((r) => r.ok)).toBe(true);
    expect(seen.a.length).toBeGreaterThan(0);
    expect(seen.b.length).toBeGreaterThan(0);
    const all = [...seen.a, ...seen.b].sort((x, y) => x - y);
    expect(all).toEqual(Array.from({ length: 60 }, (_, n) => n));
  });

  it('isolates prefixes: a request under one prefix never reaches a service under another', async () => {
    const reached: string[] = [];
    const other = createBus(env.nc, { prefix: `${env.prefix}x`, timeoutMs: 1000, log: env.log });
    const svc = await other.serve('courses', [
      endpoint(Nobody, async () => {
        reached.push('other');
        return ok({});
      }),
    ]);
    services.push(svc);
    const err = await env.bus.request(Nobody, null, {}).catch((e) => e);
    expect(err).toBeInstanceOf(Failure);
    expect(err.status).toBe(503);
    expect(await other.request(Nobody, null, {})).toEqual({ ok: true, data: {} });
    expect(reached).toEqual(['other']);
  });
});

describe('bus serve', () => {
  it('resolves only once another connection can reach the endpoints', async () => {
    const nc = await connect({ servers: env.natsUrl });
    try {
      const replica = createBus(nc, { prefix: env.prefix, timeoutMs: 1000, log: env.log });
      for (let i = 0; i < 10; i++) {
        const Fresh = defineOperation({ subject: `platformtest.fresh${i}`, input: z.object({}), output: z.object({}) });
        await replica.serve('knowledge', [endpoint(Fresh, async () => ok({}))]);
        expect(await env.bus.request(Fresh, null, {})).toEqual({ ok: true, data: {} });
      }
    } finally {
      await nc.close();
    }
  });
});

describe('bus shutdown', () => {
  it('does not crash the process when a handler finishes after its connection closed', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const nc = await connect({ servers: env.natsUrl });
      const replica = createBus(nc, { prefix: env.prefix, timeoutMs: 1000, log: env.log });
      let finished = false;
      await replica.serve('homework', [
        endpoint(Closing, async () => {
          await new Promise((r) => setTimeout(r, 300));
          finished = true;
          return ok({});
        }),
      ]);
      const pending = env.bus.request(Closing, null, {}, { timeoutMs: 200 }).catch((e) => e);
      await new Promise((r) => setTimeout(r, 50));
      await nc.close();
      expect((await pending).status).toBe(504);
      while (!finished) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
