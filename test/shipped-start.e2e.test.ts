// `npm start` itself, as a newcomer runs it, beside anything else on the machine: its own
// STUDIUM_HOME, database, subject prefix and ports (NATS_PORT, PORT, HEALTH_PORT_BASE all 0: free
// ports), a scripted model via AI_BASE_URL and an SMTP sink via SMTP_URL. It must say «Studium is
// running» only once every deployable is ready; each surface is then driven once, and SIGTERM
// must stop the whole tree within 10 s with code 0, leaving no process behind.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { dropDatabase } from '@studium/platform';
import { type ScriptedLlm, startScriptedLlm } from '@studium/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { type SmtpSink, startSmtpSink } from './support/mailer.ts';
import { driveSurfaces } from './support/surfaces.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const id = randomBytes(4).toString('hex');
const prefix = `smokestart${id}`;
const databaseUrl = `postgres://postgres@127.0.0.1:5432/studium_t_smokestart_${id}`;

let home: string;
let llm: ScriptedLlm;
let smtp: SmtpSink;
let browser: Browser;
let child: ChildProcess;
let output = '';
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
let env: Record<string, string>;

/** The ids of processes whose environment names this test's subject prefix (npm start's tree). */
async function ours(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`).catch(() => null);
    if (environ?.includes(`SUBJECT_PREFIX=${prefix}\0`)) pids.push(Number(entry));
  }
  return pids;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'studium-start-'));
  llm = await startScriptedLlm();
  smtp = await startSmtpSink();
  browser = await launchChromium();
  const { NATS_URL: _n, ...given } = process.env;
  env = {
    ...(given as Record<string, string>),
    STUDIUM_HOME: home,
    DATABASE_URL: databaseUrl,
    SUBJECT_PREFIX: prefix,
    NATS_PORT: '0',
    PORT: '0',
    HEALTH_PORT_BASE: '0',
    AI_BASE_URL: llm.url,
    AI_MODEL: 'scripted',
    AI_MAX_RETRIES: '0',
    SMTP_URL: smtp.url,
    // Nine processes on the machine's shared PostgreSQL.
    DB_POOL_MAX: '2',
    WARM_CONNECTIONS: '1',
  };
  child = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const deadline = Date.now() + 240_000;
  while (!output.includes('Studium is running')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  // The banner comes whole in one write after the line above: wait for its last line.
  while (!output.includes('Press Ctrl+C to stop.')) await new Promise((r) => setTimeout(r, 50));
}, 300_000);

afterAll(async () => {
  if (child?.exitCode === null) {
    child.kill('SIGTERM');
    await exited;
  }
  for (const pid of await ours()) process.kill(pid, 'SIGKILL');
  await browser?.close();
  await llm?.close();
  await smtp?.close();
  await dropDatabase(databaseUrl).catch(() => {});
  if (home) await rm(home, { recursive: true, force: true });
});

describe('npm start', () => {
  it('says it runs once every deployable is ready, and every surface answers', async () => {
    expect(output).toMatch(/Studium is running: .*ready/);
    for (const name of [
      'enrollment',
      'courses',
      'mailer',
      'homework',
      'ai-chat',
      'lessons',
      'knowledge',
      'reporting',
      'edge',
    ]) {
      expect(output).toContain(name);
    }
    const base = /Student MCP endpoint\s+(http:\/\/[^\s]+)\/mcp/.exec(output)?.[1] ?? '';
    const natsUrl = /NATS\s+(nats:\/\/[^\s]+)/.exec(output)?.[1] ?? '';
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(natsUrl).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
    const tokens = JSON.parse(await readFile(join(home, 'demo-tokens.json'), 'utf8'));
    const passwords = JSON.parse(await readFile(join(home, 'demo-passwords.json'), 'utf8'));
    const natsUsers = JSON.parse(await readFile(join(home, 'nats', 'nats-users.json'), 'utf8'));
    const keysFile = join(home, 'edge-keys.json');
    const keys = existsSync(keysFile)
      ? JSON.parse(await readFile(keysFile, 'utf8'))
      : { privateKey: env.EDGE_SIGNING_KEY, publicKey: env.EDGE_PUBLIC_KEY };
    await driveSurfaces({
      base,
      tokens,
      passwords,
      llm,
      smtp,
      browser,
      async cli(args) {
        // The admin CLI as the operator runs it against this platform (npm run studium).
        const { stdout } = await run('npm', ['run', '--silent', 'studium', '--', ...args], {
          cwd: root,
          env: {
            ...env,
            NATS_URL: natsUrl,
            NATS_USER: 'operator',
            NATS_PASSWORD: natsUsers.operator,
            EDGE_SIGNING_KEY: keys.privateKey,
            EDGE_PUBLIC_KEY: keys.publicKey,
          },
        });
        return stdout;
      },
    });
  }, 180_000);

  it('stops on SIGTERM within 10 s with code 0, leaving no process behind', async () => {
    expect((await ours()).length).toBeGreaterThan(9);
    const started = Date.now();
    // SIGTERM to npm alone, as a supervisor sends it: npm dies of it without passing it on, so the
    // start script notices its parent is gone and stops every deployable; it says «Studium
    // stopped.» only when each one exited 0 (and exits 0 itself).
    child.kill('SIGTERM');
    await exited;
    for (;;) {
      if ((await ours()).length === 0 && output.includes('Studium stopped')) break;
      if (Date.now() - started > 10_000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await ours()).toEqual([]);
    expect(output.slice(-3000)).toContain('Studium stopped.\n');
  }, 20_000);
});
