// Runs Debian's nats-server with the generated users and permissions (scripts/nats-auth.ts), for
// `npm start` and the tests: own config file, a free port, JetStream in its own directory.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcp } from 'node:net';
import { join } from 'node:path';
import { authorizationBlock, NATS_USERS, type NatsUser, passwordVariable } from './nats-auth.ts';

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

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcp({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Passwords of the users in `dir/nats-users.json`, generated on first use and kept, so that a
 * second `npm start` (or a process started by hand) finds the same ones.
 */
export function natsPasswords(dir: string): Record<NatsUser, string> {
  const file = join(dir, 'nats-users.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const passwords = Object.fromEntries(NATS_USERS.map((u) => [u, randomBytes(18).toString('base64url')]));
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(passwords), { mode: 0o600 });
  return passwords as Record<NatsUser, string>;
}

/** Starts nats-server in `dir` for subjects under `prefix`; resolves once it accepts connections. */
export async function startOwnNats(dir: string, prefix: string, port?: number): Promise<OwnNats> {
  if (!existsSync(NATS_SERVER))
    throw new Error(`nats-server is missing at ${NATS_SERVER}: apt-get install nats-server`);
  mkdirSync(join(dir, 'jetstream'), { recursive: true });
  const passwords = natsPasswords(dir);
  const listen = port ?? (await freePort());
  const logFile = join(dir, 'nats-server.log');
  const conf = join(dir, 'nats.conf');
  writeFileSync(
    conf,
    [
      `listen: "127.0.0.1:${listen}"`,
      `jetstream { store_dir: ${JSON.stringify(join(dir, 'jetstream'))} }`,
      `log_file: ${JSON.stringify(logFile)}`,
      // As in deployment: the passwords reach nats-server through its environment.
      authorizationBlock(prefix, 'env'),
    ].join('\n'),
    { mode: 0o600 },
  );
  const env = Object.fromEntries(NATS_USERS.map((u) => [passwordVariable(u), passwords[u]]));
  const child: ChildProcess = spawn(NATS_SERVER, ['-c', conf], {
    stdio: 'ignore',
    env: { PATH: process.env.PATH, ...env },
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const deadline = Date.now() + 10_000;
  while (!(await accepting(listen))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`nats-server did not start (see ${logFile})`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
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
