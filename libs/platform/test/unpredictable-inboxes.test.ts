import { unpredictableToken } from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The edge's reply subjects as the services it asks see them. nats.js's own NUID grows by a fixed
// increment per process, so a few of them gave away the next ones (the forged-reply attack in the
// trust model's second round); each must be drawn afresh.

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv('platform-inboxes');
});

afterAll(async () => {
  await env?.cleanup();
});

/** The longest common prefix of two strings. */
const common = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
};

describe('reply subjects', () => {
  it('share no guessable part between one request and the next', async () => {
    const seen: string[] = [];
    const { nc } = await env.serviceBus('enrollment');
    const subject = `${env.prefix}.enrollment.whoami`;
    nc.subscribe(subject, {
      callback: (_err, msg) => {
        seen.push(msg.reply ?? '');
        msg.respond(new TextEncoder().encode('{"ok":true,"data":{}}'));
      },
    });
    await nc.flush();
    for (let i = 0; i < 40; i++) await env.nc.request(subject, new Uint8Array(), { timeout: 2000 });
    expect(seen).toHaveLength(40);
    const base = seen[0]?.slice(0, seen[0].lastIndexOf('.') + 1) ?? '';
    expect(base.startsWith('_INBOX_edge.')).toBe(true);
    const tokens = seen.map((s) => s.slice(base.length));
    for (const t of tokens) expect(t).toMatch(/^[0-9A-Za-z_-]{22}$/);
    expect(new Set(tokens).size).toBe(40);
    // nats.js's NUID keeps a 12-character prefix and a sequence that steps by a constant: here no
    // two consecutive tokens share even 6 leading characters (chance 64^-6 per pair).
    for (let i = 1; i < tokens.length; i++) {
      expect(common(tokens[i - 1] as string, tokens[i] as string)).toBeLessThan(6);
    }
  });

  it('draws 132 bits per token from the CSPRNG, evenly over 64 characters', () => {
    const counts = new Map<string, number>();
    const n = 4000;
    for (let i = 0; i < n; i++) for (const c of unpredictableToken()) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(64);
    const expected = (n * 22) / 64;
    for (const count of counts.values()) expect(Math.abs(count - expected)).toBeLessThan(expected * 0.25);
  });
});
