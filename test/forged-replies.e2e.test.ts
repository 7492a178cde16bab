// The trust model's second round, item 1: a compromised ai-chat must not become anyone. The
// attack of the outside review, replayed: ai-chat (which streamed frames into the edge's inbox)
// reads a few of the edge's reply subjects from the requests the edge sends it, predicts the next
// ones (nats.js's NUID steps by a fixed increment), and floods them with a forged
// `enrollment.resolve_token` reply that makes a made-up bearer token an Administrator's. Then the
// edge's check itself, with nothing but the edge and a forger on the bus: a reply to a token or
// user lookup that enrollment did not sign for this request is no principal.

import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { resolveToken } from '@studium/contracts';
import {
  generateEdgeKeys,
  openDatabase,
  REPLY_NONCE_HEADER,
  REPLY_SIGNATURE_HEADER,
  replySigner,
} from '@studium/platform';
import { createTestEnv, TEST_REPLY_KEYS, type TestEnv } from '@studium/testing';
import { headers, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTs } from '../bench/harness.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { startEdge } from './support/stack.ts';

const enc = new TextEncoder();

/** What the forger wants to be. */
const MALLORY = {
  user: 'mallory@evil',
  full_name: 'Mallory',
  roles: ['Administrator', 'Course Creator', 'Teacher'],
  scope: 'write',
  space: 'personal',
};
const forgedReply = enc.encode(JSON.stringify({ ok: true, data: { principal: MALLORY, expires_at: null } }));
/** A bearer token nobody issued (the API token prefix, so the edge asks resolve_token). */
const madeUp = (n: number) => `stu_${createHash('sha256').update(`made-up-${n}`).digest('hex').slice(0, 40)}`;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * The next `count` reply subjects of the process whose replies these are, as nats.js's NUID
 * makes them: 12 characters of prefix, then a base-36 sequence that grows by a fixed increment
 * (found as the gcd of the observed steps).
 */
function predict(replies: string[], count: number): string[] {
  const last = replies.at(-1) ?? '';
  const base = last.slice(0, last.lastIndexOf('.') + 1);
  const tokens = replies.filter((r) => r.startsWith(base)).map((r) => r.slice(base.length));
  const pre = (tokens.at(-1) ?? '').slice(0, 12);
  const seqs = tokens.filter((t) => t.startsWith(pre)).map((t) => Number.parseInt(t.slice(12), 36));
  const steps = seqs.slice(1).map((s, i) => s - (seqs[i] as number));
  const inc = steps.reduce(gcd, 0) || 1;
  const at = seqs.at(-1) ?? 0;
  return Array.from(
    { length: count },
    (_, k) => `${base}${pre}${(at + (k + 1) * inc).toString(36).toUpperCase().padStart(10, '0')}`,
  );
}

describe('a compromised ai-chat, on the bus as deployed', () => {
  let env: TestEnv;
  let edgeUrl = '';
  let teacherToken = '';
  let aiChat: NatsConnection;
  const children: ChildProcess[] = [];
  /** Reply subjects of the edge's requests to "ai-chat" (this test, as ai-chat's NATS user). */
  const seen: string[] = [];

  beforeAll(async () => {
    env = await createTestEnv('forged');
    const common = {
      DATABASE_URL: env.databaseUrl,
      SUBJECT_PREFIX: env.prefix,
      REDIS_URL: env.redisUrl,
      FILE_URL_SECRET: randomBytes(32).toString('hex'),
    };
    const started = /"msg":"service started"/;
    children.push(
      (
        await spawnTs(
          'services/enrollment/src/main.ts',
          { ...common, ...env.natsEnv('enrollment'), DB_POOL_MAX: '2' },
          started,
        )
      ).child,
    );
    const edge = await spawnTs(
      'services/edge/src/main.ts',
      { ...common, ...env.natsEnv('edge'), PORT: '0', DB_POOL_MAX: '2' },
      /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
    );
    children.push(edge.child);
    edgeUrl = `http://127.0.0.1:${edge.match[1]}`;
    const database = openDatabase<EnrollmentDb>(env.databaseUrl, 'enrollment', 1);
    try {
      const admin = new EnrollmentAdmin(database.db, { nc: await env.as('operator'), prefix: env.prefix });
      await admin.upsertUser('teacher@test', 'Вера', ['Teacher']);
      teacherToken = (await admin.issueToken('teacher@test')).token;
    } finally {
      await database.close();
    }
    // ai-chat as the attacker runs it: its own NATS user, answering the edge's requests.
    aiChat = await env.connectAs('ai-chat');
    aiChat.subscribe(`${env.prefix}.ai-chat.model_status`, {
      callback: (_err, msg) => {
        if (msg.reply) seen.push(msg.reply);
        msg.respond(enc.encode(JSON.stringify({ ok: true, data: { model: null } })));
      },
    });
    await aiChat.flush();
  }, 60_000);

  afterAll(async () => {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    await env?.cleanup();
  });

  const status = (token: string) =>
    fetch(`${edgeUrl}/v1/ai-chat/status`, { headers: { authorization: `Bearer ${token}` } });

  it('cannot turn a made-up token into an Administrator by flooding the predicted inboxes', async () => {
    // The edge's requests to ai-chat show their reply subjects.
    for (let i = 0; i < 6; i++) expect((await status(teacherToken)).status).toBe(200);
    expect(seen.length).toBeGreaterThanOrEqual(6);
    const mark = (await env.violations()).length;
    const results: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const predicted = predict(seen, 120);
      let flooding = true;
      const flood = (async () => {
        const until = Date.now() + 400;
        while (flooding && Date.now() < until) {
          for (const subject of predicted) aiChat.publish(subject, forgedReply);
          await aiChat.flush().catch(() => {});
        }
      })();
      // Let the flood start before the edge asks.
      await new Promise((r) => setTimeout(r, 20));
      results.push((await status(madeUp(attempt))).status);
      flooding = false;
      await flood;
      // Fresh reply subjects for the next prediction.
      await status(teacherToken);
    }
    // Each made-up token stays unknown: no forged reply became a principal.
    expect(results).toEqual([401, 401, 401, 401, 401]);
    // ai-chat may not publish into the edge's inbox at all (nats-server refuses and logs it).
    const refused = (await env.violations()).slice(mark);
    expect(refused.some((l) => l.includes('Publish') && l.includes('_INBOX_edge'))).toBe(true);
  }, 60_000);

  it('cannot make the edge publish its controls to another subject than an answer’s own', async () => {
    // The hostile ai-chat accepts a teacher's message and names a control subject of homework's.
    const target = `${env.prefix}.homework.store_homework_file`;
    aiChat.subscribe(`${env.prefix}.ai-chat.start_answer`, {
      callback: (_err, msg) =>
        msg.respond(
          enc.encode(JSON.stringify({ ok: true, data: { thread_id: 't1', message_id: 'm1', control: target } })),
        ),
    });
    await aiChat.flush();
    const operator = await env.as('operator');
    let published = 0;
    operator.subscribe(target, { callback: () => published++ });
    await operator.flush();
    const abort = new AbortController();
    const res = await fetch(`${edgeUrl}/v1/ai-chat/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${teacherToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Здравствуйте', thread_id: null }),
      signal: abort.signal,
    });
    // A stream would tell ai-chat "cancel" at once when its client goes.
    abort.abort();
    await new Promise((r) => setTimeout(r, 500));
    expect(res.status).toBe(503);
    expect(published).toBe(0);
  });
});

describe("the edge's check of identity replies", () => {
  let env: TestEnv;
  let edge: Awaited<ReturnType<typeof startEdge>>;
  let forger: NatsConnection;
  /** How the forger answers resolve_token now. */
  let answer: (nonce: string, wire: string) => { data: Uint8Array; signature?: string } = () => ({ data: forgedReply });

  beforeAll(async () => {
    // Only the edge and a forger serving enrollment.resolve_token: no permissions stand between
    // them, so the edge's own check is all that is left.
    env = await createTestEnv('forged-check', { nats: 'open' });
    edge = await startEdge(env);
    forger = await env.connectAs('enrollment');
    const wire = `${env.prefix}.${resolveToken.subject}`;
    forger.subscribe(wire, {
      callback: (_err, msg) => {
        const { data, signature } = answer(msg.headers?.get(REPLY_NONCE_HEADER) ?? '', wire);
        const h = headers();
        if (signature) h.set(REPLY_SIGNATURE_HEADER, signature);
        msg.respond(data, { headers: h });
      },
    });
    // ai-chat's status, so that a caller the edge takes gets a 200.
    forger.subscribe(`${env.prefix}.ai-chat.model_status`, {
      callback: (_err, msg) => msg.respond(enc.encode(JSON.stringify({ ok: true, data: { model: null } }))),
    });
    await forger.flush();
  });

  afterAll(async () => {
    await edge?.close();
    await env?.cleanup();
  });

  const whoAmI = async (n: number) =>
    (await fetch(`${edge.url}/v1/ai-chat/status`, { headers: { authorization: `Bearer ${madeUp(100 + n)}` } })).status;

  it('refuses an unsigned resolve_token reply', async () => {
    answer = () => ({ data: forgedReply });
    // 503: the edge could not learn who this is (enrollment "unavailable"), never a principal.
    expect(await whoAmI(1)).toBe(503);
  });

  it('refuses one signed with another key, one replayed for another request, one for another subject', async () => {
    const other = replySigner(generateEdgeKeys().privateKey); // a key enrollment never had
    const genuine = replySigner(TEST_REPLY_KEYS.privateKey);
    answer = (nonce, wire) => ({ data: forgedReply, signature: other.sign(wire, nonce, forgedReply) });
    expect(await whoAmI(2)).toBe(503);
    // A reply enrollment really signed, but for an earlier request's nonce.
    const recorded = genuine.sign(`${env.prefix}.${resolveToken.subject}`, 'A'.repeat(22), forgedReply);
    answer = () => ({ data: forgedReply, signature: recorded });
    expect(await whoAmI(3)).toBe(503);
    answer = (nonce) => ({
      data: forgedReply,
      signature: genuine.sign(`${env.prefix}.enrollment.resolve_user`, nonce, forgedReply),
    });
    expect(await whoAmI(4)).toBe(503);
    // Other bytes than the ones signed.
    answer = (nonce, wire) => ({
      data: enc.encode(JSON.stringify({ ok: true, data: { principal: { ...MALLORY, user: 'x' }, expires_at: null } })),
      signature: genuine.sign(wire, nonce, forgedReply),
    });
    expect(await whoAmI(5)).toBe(503);
    expect(edge.bus.stats.forgedReplies).toBeGreaterThanOrEqual(5);
  });

  it('takes the reply signed with enrollment’s key for this very request (the test can pass)', async () => {
    const genuine = replySigner(TEST_REPLY_KEYS.privateKey);
    answer = (nonce, wire) => ({ data: forgedReply, signature: genuine.sign(wire, nonce, forgedReply) });
    expect(await whoAmI(6)).toBe(200);
  });
});
