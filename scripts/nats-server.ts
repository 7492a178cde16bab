// Runs Debian's nats-server with the generated users and permissions (scripts/nats-auth.ts), for
// `npm start` and the tests: own config file, a free port, JetStream in its own directory.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { authorizationBlock, NATS_USERS, type NatsUser, newNatsPassword, passwordVariable } from './nats-auth.ts';

export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/** A running nats-server with per-service users. */
export interface OwnNats {
  url: string;
  port: number;
  passwords: Record<NatsUser, string>;
  /** The environment a process connecting as `user` needs (NATS_URL, NATS_USER, NATS_PASSWORD). */
  envFor(user: NatsUser): Record<string, string>;
  logFile: string;
  stop(): Promise<void>;
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Passwords of the users in `dir/nats-users.json`, generated on first use and kept, so that a
 * second `npm start` (or a process started by hand) finds the same ones.
 */
export function natsPasswords(dir: string): Record<NatsUser, string> {
  const file = join(dir, 'nats-users.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const passwords = Object.fromEntries(NATS_USERS.map((u) => [u, newNatsPassword()]));
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(passwords), { mode: 0o600 });
  return passwords as Record<NatsUser, string>;
}

/**
 * Starts nats-server in `dir` for subjects under `prefix`; resolves once it is ready. Without a
 * `port` it takes a free one, and another if that was taken meanwhile (a busy machine).
 */
export async function startOwnNats(dir: string, prefix: string, port?: number): Promise<OwnNats> {
  if (!existsSync(NATS_SERVER)) {
    throw new Error(`nats-server is missing at ${NATS_SERVER}: apt-get install nats-server`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(dir, prefix, port ?? (await freePort()));
    } catch (err) {
      if (port !== undefined || attempt >= 3) throw err;
    }
  }
}

async function startOnce(dir: string, prefix: string, listen: number): Promise<OwnNats> {
  mkdirSync(join(dir, 'jetstream'), { recursive: true });
  const passwords = natsPasswords(dir);
  const logFile = join(dir, 'nats-server.log');
  const conf = join(dir, 'nats.conf');
  writeFileSync(
    conf,
    [
      `listen: "127.0.0.1:${listen}"`,
      `jetstream { store_dir: ${JSON.stringify(join(dir, 'jetstream'))} }`,
      // As in deployment: the passwords reach nats-server through its environment.
      authorizationBlock(prefix, 'env'),
    ].join('\n'),
    { mode: 0o600 },
  );
  const env = Object.fromEntries(NATS_USERS.map((u) => [passwordVariable(u), passwords[u]]));
  // The log goes to stderr (into the file, and read here for the ready line or the reason it stopped).
  const child: ChildProcess = spawn(NATS_SERVER, ['-c', conf], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH, ...env },
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let log = '';
  let ready = false;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail('did not get ready within 30 s'), 30_000);
    function fail(why: string) {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(new Error(`nats-server ${why}:\n${log.slice(-2000)}`));
    }
    child.stderr?.on('data', (chunk: Buffer) => {
      appendFileSync(logFile, chunk);
      if (ready) return;
      log += chunk.toString();
      if (log.includes('Server is ready')) {
        ready = true;
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      if (!ready) fail(`exited with ${code}`);
    });
  });
  const url = `nats://127.0.0.1:${listen}`;
  return {
    url,
    port: listen,
    passwords,
    envFor: (user) => ({ NATS_URL: url, NATS_USER: user, NATS_PASSWORD: passwords[user] }),
    logFile,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
