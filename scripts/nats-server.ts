// Runs Debian's nats-server with the generated users and permissions (scripts/nats-auth.ts), for
// `npm start` and the tests: own config file, a port of its own (a free one it takes itself unless
// one is given), JetStream in its own directory.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  /** The server's process id (a test may SIGSTOP it to play a stalled NATS). */
  pid: number;
  /** Its HTTP monitoring endpoint (`/varz`, `/connz` …), when started with `monitor`. */
  monitorUrl?: string;
  stop(): Promise<void>;
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
 * `port` (or with 0) the server takes a free port itself (`port: -1`) and reports it in its log.
 * `users: false` runs it without authorization, for the tests that are about an open server;
 * `passwords` sets the users' passwords (otherwise generated once into `dir`); `monitor` opens the
 * HTTP monitoring endpoint on a free port of 127.0.0.1 (the benches read its message counters).
 */
export async function startOwnNats(
  dir: string,
  prefix: string,
  port?: number,
  opts: { users?: boolean; passwords?: Record<NatsUser, string>; monitor?: boolean } = {},
): Promise<OwnNats> {
  if (!existsSync(NATS_SERVER)) {
    throw new Error(`nats-server is missing at ${NATS_SERVER}: apt-get install nats-server`);
  }
  // Given passwords (a deployment's, from `npm run secrets`) are the ones the server checks.
  if (opts.passwords) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'nats-users.json'), JSON.stringify(opts.passwords), { mode: 0o600 });
  }
  return startOnce(dir, prefix, port || -1, opts.users ?? true, opts.monitor ?? false);
}

async function startOnce(
  dir: string,
  prefix: string,
  listen: number,
  users: boolean,
  monitor: boolean,
): Promise<OwnNats> {
  mkdirSync(join(dir, 'jetstream'), { recursive: true });
  const passwords = natsPasswords(dir);
  const logFile = join(dir, 'nats-server.log');
  const conf = join(dir, 'nats.conf');
  writeFileSync(
    conf,
    [
      'host: "127.0.0.1"',
      `port: ${listen}`,
      monitor ? 'http: "127.0.0.1:-1"' : '',
      `jetstream { store_dir: ${JSON.stringify(join(dir, 'jetstream'))} }`,
      // As in deployment: the passwords reach nats-server through its environment.
      users ? authorizationBlock(prefix, 'env') : '',
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
  let port = listen;
  let monitorPort = 0;
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
      const bound = /Listening for client connections on [^\s]*:(\d+)/.exec(log);
      if (bound) port = Number(bound[1]);
      const monitoring = /Starting http monitor on [^\s]*:(\d+)/.exec(log);
      if (monitoring) monitorPort = Number(monitoring[1]);
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
  const url = `nats://127.0.0.1:${port}`;
  return {
    url,
    port,
    passwords,
    envFor: (user): Record<string, string> =>
      users ? { NATS_URL: url, NATS_USER: user, NATS_PASSWORD: passwords[user] } : { NATS_URL: url },
    logFile,
    pid: child.pid ?? 0,
    ...(monitorPort ? { monitorUrl: `http://127.0.0.1:${monitorPort}` } : {}),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
