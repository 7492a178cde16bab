import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { defineOperation, ok, type Principal } from '@studium/contracts';
import {
  createBus,
  endpoint,
  generateEdgeKeys,
  PRINCIPAL_HEADER,
  principalSigner,
  principalVerifier,
  receivedPrincipal,
  SignedTokens,
  TOKEN_REUSE_MS,
  trustFromEnv,
} from '@studium/platform';
import { createTestEnv, EDGE_TRUST, SERVICE_TRUST, TEST_KEYS, TEST_REPLY_KEYS, type TestEnv } from '@studium/testing';
import { headers, type Service, ServiceError } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

// Test-only contracts: the subjects exist only under this file's prefix.
const Mine = defineOperation({
  subject: 'trusttest.mine',
  input: z.object({}),
  output: z.object({ user: z.string().nullable() }),
});
const Lookup = defineOperation({
  subject: 'trusttest.lookup',
  input: z.object({}),
  output: z.object({ user: z.string().nullable() }),
});
const Relay = defineOperation({
  subject: 'trusttest.relay',
  input: z.object({ to: z.enum(['lookup', 'mine']), makeUp: z.boolean().default(false) }),
  output: z.object({ user: z.string().nullable() }),
});

const anna: Principal = { user: 'anna@t', full_name: 'Анна', roles: ['Student'], scope: 'write', space: 'personal' };
const admin: Principal = { ...anna, user: 'root@t', roles: ['Administrator'] };

let env: TestEnv;
let service: Service;
const handled: string[] = [];

beforeAll(async () => {
  env = await createTestEnv('trust', { nats: 'open' });
  const bus = createBus(env.nc, { prefix: env.prefix, timeoutMs: 2000, log: env.log, trust: SERVICE_TRUST });
  service = await bus.serve('enrollment', [
    endpoint(Mine, async (_a, ctx) => {
      handled.push('mine');
      return ok({ user: ctx.principal?.user ?? null });
    }),
    endpoint(Lookup, async (_a, ctx) => ok({ user: ctx.principal?.user ?? null }), { forwarded: true }),
    endpoint(Relay, async (args, ctx) => {
      const who = args.makeUp && ctx.principal ? { ...ctx.principal } : ctx.principal;
      return bus.request(args.to === 'lookup' ? Lookup : Mine, who, {});
    }),
  ]);
});

afterAll(async () => {
  await service?.stop().catch(() => {});
  await env?.cleanup();
});

/** A raw NATS request, as any client that can reach NATS could send it. */
async function raw(subject: string, body: unknown, token?: string) {
  const h = headers();
  if (token) h.set(PRINCIPAL_HEADER, token);
  const msg = await env.nc.request(`${env.prefix}.${subject}`, new TextEncoder().encode(JSON.stringify(body)), {
    timeout: 2000,
    headers: h,
  });
  const err = ServiceError.toServiceError(msg);
  return err ? { status: err.code, message: err.message } : JSON.parse(new TextDecoder().decode(msg.data));
}

describe('a signed principal', () => {
  it('reaches the handler when the edge signed it for the subject', async () => {
    expect(await env.bus.request(Mine, anna, {})).toEqual({ ok: true, data: { user: 'anna@t' } });
    expect(await env.bus.request(Mine, null, {})).toEqual({ ok: true, data: { user: null } });
  });

  it('is refused unsigned, forged, expired, tampered, for another subject or another user', async () => {
    const signer = principalSigner(TEST_KEYS.privateKey);
    const later = Date.now() + 10_000;
    const before = handled.length;
    const otherKey = principalSigner(generateEdgeKeys().privateKey);
    const good = signer.sign(anna, Mine.subject, later);
    const [v, kid, payload, sig] = good.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ p: admin, sub: Mine.subject, exp: later })).toString(
      'base64url',
    );
    const cases: Array<[string, unknown, string | undefined, number, string]> = [
      ['unsigned', { principal: admin, args: {} }, undefined, 401, 'unsigned'],
      ['other key', { args: {} }, otherKey.sign(admin, Mine.subject, later), 403, 'unknown_key'],
      ['tampered', { args: {} }, `${v}.${kid}.${forgedPayload}.${sig}`, 403, 'bad_signature'],
      ['expired', { args: {} }, signer.sign(anna, Mine.subject, Date.now() - 5_000), 401, 'expired'],
      [
        'other subject',
        { args: {} },
        signer.sign(anna, Lookup.subject.replace('lookup', 'x'), later),
        403,
        'wrong_subject',
      ],
      ['another user', { principal: admin, args: {} }, good, 403, 'mismatch'],
      ['garbage', { args: {} }, 'v1.x.y', 403, 'malformed'],
    ];
    for (const [name, body, token, status, message] of cases) {
      expect(await raw(Mine.subject, body, token), name).toEqual({ status, message });
    }
    expect(handled.length).toBe(before);
    expect(payload?.length).toBeGreaterThan(0);
  });

  it('is passed on by a service from ctx.principal, only to endpoints that take forwarded callers', async () => {
    expect(await env.bus.request(Relay, anna, { to: 'lookup', makeUp: false })).toEqual({
      ok: true,
      data: { user: 'anna@t' },
    });
    await expect(env.bus.request(Relay, anna, { to: 'mine', makeUp: false })).rejects.toMatchObject({
      status: 403,
      message: 'wrong_subject',
    });
  });

  it('cannot be made up by a service: a principal it did not receive is not sent', async () => {
    await expect(env.bus.request(Relay, anna, { to: 'lookup', makeUp: true })).rejects.toMatchObject({
      status: 500,
    });
  });

  it('is refused by a service without the key', async () => {
    const keyless = createBus(env.nc, { prefix: `${env.prefix}k`, timeoutMs: 2000, log: env.log });
    const svc = await keyless.serve('courses', [endpoint(Mine, async () => ok({ user: 'never' }))]);
    try {
      const signing = createBus(env.nc, { prefix: `${env.prefix}k`, timeoutMs: 2000, log: env.log, trust: EDGE_TRUST });
      await expect(signing.request(Mine, anna, {})).rejects.toMatchObject({ status: 403, message: 'no_key' });
    } finally {
      await svc.stop();
    }
  });
});

describe('kept tokens', () => {
  it("the edge reuses a caller's token per subject while it outlives the deadline, and signs anew otherwise", () => {
    let signed = 0;
    const base = principalSigner(TEST_KEYS.privateKey);
    const tokens = new SignedTokens({
      sign: (p, sub, exp) => {
        signed++;
        return base.sign(p, sub, exp);
      },
    });
    const now = Date.now();
    const first = tokens.tokenFor(anna, Mine.subject, now + 2000);
    expect(tokens.tokenFor(anna, Mine.subject, now + 2000 + TOKEN_REUSE_MS)).toBe(first);
    expect(signed).toBe(1);
    // Past what the kept token covers, another subject, another space: new signatures.
    expect(tokens.tokenFor(anna, Mine.subject, now + 2001 + TOKEN_REUSE_MS)).not.toBe(first);
    expect(tokens.tokenFor(anna, Lookup.subject, now + 2000)).not.toBe(first);
    const elsewhere = tokens.tokenFor({ ...anna, space: 'acme' }, Mine.subject, now + 2000);
    expect(signed).toBe(4);
    const verifier = principalVerifier(TEST_KEYS.publicKey);
    expect(verifier.verify(elsewhere)).toMatchObject({ ok: true, signed: { principal: { space: 'acme' } } });
    expect(verifier.verify(first)).toMatchObject({ ok: true, signed: { exp: now + 2000 + TOKEN_REUSE_MS } });
  });

  it('a verifier keeps what it verified only until expiry, and never what failed', () => {
    const signer = principalSigner(TEST_KEYS.privateKey);
    const verifier = principalVerifier(TEST_KEYS.publicKey);
    const now = Date.now();
    const token = signer.sign(anna, Mine.subject, now + 1000);
    const first = verifier.verify(token, now);
    expect(first).toMatchObject({ ok: true });
    // The kept answer is the same object, frozen to the bottom: no handler can change another's principal.
    const again = verifier.verify(token, now);
    expect(again).toEqual(first);
    if (!again.ok || !first.ok) throw new Error('kept token refused');
    expect(again.signed).toBe(first.signed);
    expect(Object.isFrozen(receivedPrincipal(again.signed).roles)).toBe(true);
    // Expiry is checked on every use (2 s of skew allowed), kept or not.
    expect(verifier.verify(token, now + 3001)).toEqual({ ok: false, reason: 'expired' });
    expect(verifier.verify(token, now + 3001)).toEqual({ ok: false, reason: 'expired' });
    // One changed character of a kept token is another token: verified from scratch, refused.
    const [v, kid, payload, sig] = token.split('.') as [string, string, string, string];
    const flipped = `${v}.${kid}.${payload}.${sig.slice(0, 10)}${sig[10] === 'A' ? 'B' : 'A'}${sig.slice(11)}`;
    expect(verifier.verify(flipped, now)).toEqual({ ok: false, reason: 'bad_signature' });
    const other = principalVerifier(generateEdgeKeys().publicKey);
    expect(other.verify(token, now)).toEqual({ ok: false, reason: 'unknown_key' });
  });
});

describe('keys from the environment', () => {
  it('verifies with any of several public keys during a rotation', () => {
    const old = generateEdgeKeys();
    const next = generateEdgeKeys();
    const both = principalVerifier(`${old.publicKey},${next.publicKey}`);
    for (const k of [old, next]) {
      const t = principalSigner(k.privateKey).sign(anna, Mine.subject, Date.now() + 1000);
      expect(both.verify(t)).toMatchObject({ ok: true, signed: { principal: anna, sub: Mine.subject } });
    }
    const t = principalSigner(old.privateKey).sign(anna, Mine.subject, Date.now() + 1000);
    expect(principalVerifier(next.publicKey).verify(t)).toEqual({ ok: false, reason: 'unknown_key' });
  });

  it('refuses to start in production without a key, and with a bad one, in one line', () => {
    expect(() => trustFromEnv({ NODE_ENV: 'production' }, 'service')).toThrow(/^EDGE_PUBLIC_KEY is not set/);
    expect(() => trustFromEnv({ NODE_ENV: 'production', EDGE_PUBLIC_KEY: TEST_KEYS.publicKey }, 'edge')).toThrow(
      /^EDGE_SIGNING_KEY is not set/,
    );
    expect(() => trustFromEnv({ EDGE_PUBLIC_KEY: 'bm90IGEga2V5' }, 'service')).toThrow(/^bad edge key/);
    // The edge checks enrollment's identity replies, and enrollment signs them: each needs its half.
    expect(() => trustFromEnv({ NODE_ENV: 'production', EDGE_SIGNING_KEY: TEST_KEYS.privateKey }, 'edge')).toThrow(
      /^ENROLLMENT_PUBLIC_KEY is not set/,
    );
    const production = { NODE_ENV: 'production', EDGE_PUBLIC_KEY: TEST_KEYS.publicKey };
    expect(() => trustFromEnv(production, 'service', 'enrollment')).toThrow(/^ENROLLMENT_SIGNING_KEY is not set/);
    expect(() =>
      trustFromEnv({ ...production, ENROLLMENT_SIGNING_KEY: 'bm90IGEga2V5' }, 'service', 'enrollment'),
    ).toThrow(/^bad enrollment key/);
    // No other service reads it.
    expect(trustFromEnv(production, 'service', 'lessons').replySigner).toBeUndefined();
    const trust = trustFromEnv(
      {
        NODE_ENV: 'production',
        EDGE_SIGNING_KEY: TEST_KEYS.privateKey,
        ENROLLMENT_PUBLIC_KEY: TEST_REPLY_KEYS.publicKey,
      },
      'edge',
    );
    expect(trust.signer).toBeDefined();
    expect(trust.replyVerifier).toBeDefined();
    const enrollment = trustFromEnv(
      { ...production, ENROLLMENT_SIGNING_KEY: TEST_REPLY_KEYS.privateKey },
      'service',
      'enrollment',
    );
    expect(enrollment.replySigner).toBeDefined();
  });

  it('stops a service started without the key in production with one line', async () => {
    const main = resolve(import.meta.dirname, '../../../services/lessons/src/main.ts');
    const { EDGE_PUBLIC_KEY: _drop, ...rest } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', main], {
      env: { ...rest, NODE_ENV: 'production', EDGE_SIGNING_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(1);
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string).msg).toBe(
      'EDGE_PUBLIC_KEY is not set: the bus cannot prove or check who calls',
    );
  });
});
