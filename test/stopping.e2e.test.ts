import { once } from 'node:events';
import { connect } from 'node:net';
import { phraseFor } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from './support/process.ts';
import { startEdge } from './support/stack.ts';

// Stopping cleanly: an edge on its way down answers in the spec's words, and the mailer leaves
// on SIGTERM within seconds even when Redis is gone.
let env: TestEnv;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  env = await createTestEnv('stopping');
});

afterAll(async () => {
  for (const p of processes) await p.kill();
  await env?.cleanup();
}, 60_000);

describe('an edge being stopped', () => {
  it('answers a request that arrives meanwhile with the spec 5xx phrase', async () => {
    const edge = await startEdge(env);
    const socket = connect(Number(new URL(edge.url).port), '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.on('data', (d) => {
      received += d.toString();
    });
    // A request in flight (its body still arriving) keeps the connection open while the edge closes.
    // The sign-in form reads its body before it answers (a request refused before its body, like
    // /mcp without a token, is answered with Connection: close and would end the connection).
    const body = 'login=anna&password=x';
    socket.write(
      `POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 11)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    const closed = edge.app.close();
    await new Promise((r) => setTimeout(r, 200));
    // The rest of it, and a second request on the same connection, after the edge began to close.
    socket.write(`${body.slice(11)}GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await eventually(async () => expect(received.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(2));
    const second = received.slice(received.lastIndexOf('HTTP/1.1'));
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    const json = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4));
    expect(json.error.message).toBe(phraseFor(503));
    expect(received).not.toContain('Server is shutting down');
    socket.destroy();
    await closed;
    await edge.close().catch(() => {});
  }, 60_000);
});

describe('the mailer with Redis unreachable', () => {
  it('exits on SIGTERM within a few seconds', async () => {
    const mailer = spawnService('services/mailer/src/main.ts', {
      ...env.natsEnv('mailer'),
      // Nothing listens on port 1 (privileged: no test process can take it).
      REDIS_URL: 'redis://127.0.0.1:1',
      SUBJECT_PREFIX: env.prefix,
    });
    processes.push(mailer);
    await mailer.waitFor('"msg":"service started"');
    // Let it try Redis for a while, as it would after Redis went away.
    await new Promise((r) => setTimeout(r, 1_500));
    const asked = Date.now();
    const exit = await mailer.kill('SIGTERM');
    const tookMs = Date.now() - asked;
    expect(exit.code).toBe(0);
    expect(mailer.output()).toContain('"msg":"stopping"');
    // Nothing can complete without Redis, so it does not wait (MAIL_STOP_TIMEOUT_MS bounds the rest).
    expect(mailer.output()).toContain('Redis unreachable, closing without waiting');
    expect(tookMs).toBeLessThan(5_000);
  }, 60_000);
});
