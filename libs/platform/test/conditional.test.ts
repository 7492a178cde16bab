import { defineOperation, ok, type Principal, refuse } from '@studium/contracts';
import { endpoint, Failure, notModified, ReplyCache, tagged } from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import type { Service } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

// A versioned value per key, as a service with change stamps would serve it.
const Versioned = defineOperation({
  subject: 'platformtest.versioned',
  input: z.object({ key: z.string() }),
  output: z.object({ key: z.string(), version: z.number(), user: z.string().nullable() }),
});
// A service that answers "not modified" whatever the caller holds (a broken one).
const Liar = defineOperation({ subject: 'platformtest.liar', input: z.object({}), output: z.object({}) });

const versions = new Map<string, number>();
const seen: Array<string | null> = [];
const principal = (user: string): Principal => ({
  user,
  full_name: 'Тест',
  roles: ['Student'],
  scope: 'write',
  space: 'personal',
});

let env: TestEnv;
let service: Service;

beforeAll(async () => {
  env = await createTestEnv('platform-conditional', { nats: 'open' });
  service = await env.bus.serve('enrollment', [
    endpoint(Versioned, async ({ key }, { principal, ifNoneMatch }) => {
      seen.push(ifNoneMatch);
      if (key === 'refused') return refuse('nothing_here', 'Здесь ничего нет');
      const version = versions.get(key) ?? 1;
      const etag = `${principal?.user}:${key}:${version}`;
      if (ifNoneMatch === etag) return notModified(etag);
      return tagged(etag, ok({ key, version, user: principal?.user ?? null }));
    }),
    endpoint(Liar, async () => notModified('whatever')),
  ]);
});

afterAll(async () => {
  await service?.stop().catch(() => {});
  await env?.cleanup();
});

describe('conditional requests', () => {
  it('keeps a tagged reply, revalidates it with its ETag and returns the kept object while current', async () => {
    const cache = new ReplyCache(1024 * 1024);
    seen.length = 0;
    const first = await env.bus.request(Versioned, principal('a@t'), { key: 'x' }, { cache });
    expect(first).toEqual({ ok: true, data: { key: 'x', version: 1, user: 'a@t' } });
    expect(first).not.toHaveProperty('etag');
    const second = await env.bus.request(Versioned, principal('a@t'), { key: 'x' }, { cache });
    expect(second).toBe(first);
    expect(seen).toEqual([null, 'a@t:x:1']);
    expect(cache.size).toBe(1);

    versions.set('x', 2);
    const third = await env.bus.request(Versioned, principal('a@t'), { key: 'x' }, { cache });
    expect(third).toEqual({ ok: true, data: { key: 'x', version: 2, user: 'a@t' } });
    expect(third).not.toBe(first);
    expect(await env.bus.request(Versioned, principal('a@t'), { key: 'x' }, { cache })).toBe(third);
    expect(seen.at(-1)).toBe('a@t:x:2');
  });

  it('keeps replies apart by user and arguments', async () => {
    const cache = new ReplyCache(1024 * 1024);
    seen.length = 0;
    await env.bus.request(Versioned, principal('a@t'), { key: 'y' }, { cache });
    const forB = await env.bus.request(Versioned, principal('b@t'), { key: 'y' }, { cache });
    expect(forB).toMatchObject({ data: { user: 'b@t' } });
    await env.bus.request(Versioned, principal('a@t'), { key: 'z' }, { cache });
    // None of them carried another one's ETag.
    expect(seen).toEqual([null, null, null]);
    expect(cache.size).toBe(3);
  });

  it('without a cache sends no ETag and strips the one that comes back', async () => {
    seen.length = 0;
    const a = await env.bus.request(Versioned, principal('a@t'), { key: 'w' });
    const b = await env.bus.request(Versioned, principal('a@t'), { key: 'w' });
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
    expect(a).not.toHaveProperty('etag');
    expect(seen).toEqual([null, null]);
  });

  it('does not keep untagged replies such as refusals', async () => {
    const cache = new ReplyCache(1024 * 1024);
    const reply = await env.bus.request(Versioned, principal('a@t'), { key: 'refused' }, { cache });
    expect(reply).toMatchObject({ ok: false, error: { code: 'nothing_here' } });
    expect(cache.size).toBe(0);
  });

  it('fails with 502 when a service answers "not modified" to a caller that holds nothing', async () => {
    const cache = new ReplyCache(1024 * 1024);
    const err = await env.bus.request(Liar, principal('a@t'), {}, { cache }).catch((e) => e);
    expect(err).toBeInstanceOf(Failure);
    expect(err.status).toBe(502);
  });
});

describe('ReplyCache', () => {
  const entry = (etag: string, bytes: number) => ({ etag, reply: { etag }, bytes });

  it('drops the least recently used replies past its size (a one-letter key costs 2 bytes)', () => {
    const cache = new ReplyCache(100);
    cache.set('a', entry('1', 40));
    cache.set('b', entry('2', 40));
    expect(cache.get('a')?.etag).toBe('1'); // a is now the most recently used
    cache.set('c', entry('3', 40));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.etag).toBe('1');
    expect(cache.get('c')?.etag).toBe('3');
    expect(cache.bytes).toBe(84);
  });

  it('replaces a key without counting it twice, and keeps nothing larger than itself', () => {
    const cache = new ReplyCache(100);
    cache.set('a', entry('1', 60));
    cache.set('a', entry('2', 70));
    expect(cache.bytes).toBe(72);
    expect(cache.get('a')?.etag).toBe('2');
    cache.set('a', entry('3', 99));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.bytes).toBe(0);
    expect(new ReplyCache(0).size).toBe(0);
  });

  it('counts a kept reply at its footprint (the wire size times the factor) and its key', () => {
    const cache = new ReplyCache(110, 5);
    cache.set('a', entry('1', 10));
    cache.set('b', entry('2', 10));
    expect(cache.bytes).toBe(104);
    cache.set('c', entry('3', 10));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.bytes).toBe(104);
    cache.set('d', entry('4', 22));
    expect(cache.get('d')).toBeUndefined();
    // Arguments as long as a caller makes them are memory too: a long key alone can overflow.
    cache.set('x'.repeat(60), entry('5', 1));
    expect(cache.get('x'.repeat(60))).toBeUndefined();
    expect(cache.bytes).toBe(104);
  });
});
