import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Debian's PgBouncer (1.18; `apt-get install pgbouncer`). */
const BINARY = '/usr/sbin/pgbouncer';

/** A PgBouncer in transaction mode started by a test, in front of the machine's PostgreSQL. */
export interface PgBouncer {
  port: number;
  /** The role its server connections log in as (count them in pg_stat_activity). */
  role: string;
  /** The URL of a service's alias: its own pool, whose connections have the service's search_path. */
  url(schema: string): string;
  /** Stops PgBouncer (its server connections close). */
  stop(): Promise<void>;
  /** Stops it and drops its role (after the test's database is gone). */
  cleanup(): Promise<void>;
}

/** A free local TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * The shipped pooler's `server_login_retry` (compose/pgbouncer/pgbouncer.ini; k8s/pgbouncer.yaml
 * sets the same, test/manifests.test.ts checks): the tests' PgBouncer runs what ships.
 */
export const SERVER_LOGIN_RETRY_S = Number(
  /^server_login_retry\s*=\s*(\d+(?:\.\d+)?)\s*$/m.exec(
    readFileSync(new URL('../../compose/pgbouncer/pgbouncer.ini', import.meta.url), 'utf8'),
  )?.[1] ?? Number.NaN,
);

const ADMIN = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * Starts PgBouncer in transaction mode with one alias per schema (named like the schema, with
 * `connect_query` setting its search_path: a pooler cannot pass the clients' `options`), each
 * with at most `poolSize` server connections, logging in as a role of its own. It listens on a
 * free TCP port (another one when the one it was given is taken meanwhile: its log says whether
 * it bound), or, with `socketDir`, only on a Unix socket in that folder: a test that must name
 * the pooler's address before it starts owns the address outright.
 */
export async function startPgBouncer(opts: {
  database: string;
  schemas: string[];
  poolSize: number;
  /** Listen only on `<socketDir>/.s.PGSQL.6432` (the folder is the test's own). */
  socketDir?: string;
  /** Where PostgreSQL listens (a test's proxy in front of it, to stop and start it): 5432. */
  upstreamPort?: number;
}): Promise<PgBouncer> {
  for (let attempt = 1; ; attempt++) {
    const port = opts.socketDir ? SOCKET_PORT : await freePort();
    try {
      return await startOn(port, opts);
    } catch (err) {
      if (opts.socketDir || !(err instanceof PortTaken) || attempt >= 5) throw err;
    }
  }
}

/** The port number in the socket's name when PgBouncer listens on a Unix socket only. */
const SOCKET_PORT = 6432;

class PortTaken extends Error {}

async function startOn(
  port: number,
  opts: { database: string; schemas: string[]; poolSize: number; socketDir?: string; upstreamPort?: number },
): Promise<PgBouncer> {
  const role = `studium_bouncer_${opts.socketDir ? randomBytes(4).toString('hex') : port}`;
  await admin((c) =>
    c.query(`do $$ begin create role ${role} login superuser; exception when duplicate_object then null; end $$`),
  );
  const dir = await mkdtemp(join(tmpdir(), 'studium-pgbouncer-'));
  // PgBouncer runs as postgres (below) and writes its log (and its socket) here.
  await chmod(dir, 0o777);
  if (opts.socketDir) await chmod(opts.socketDir, 0o777);
  const databases = opts.schemas.map(
    (s) =>
      `${s} = host=127.0.0.1 port=${opts.upstreamPort ?? 5432} dbname=${opts.database} user=${role} pool_size=${opts.poolSize} ` +
      `max_db_connections=${opts.poolSize} connect_query='set search_path to ${s}'`,
  );
  const log = join(dir, 'pgbouncer.log');
  const ini = `[databases]
${databases.join('\n')}

[pgbouncer]
listen_addr = ${opts.socketDir ? '' : '127.0.0.1'}
listen_port = ${port}
unix_socket_dir = ${opts.socketDir ?? ''}
auth_type = trust
auth_file = ${join(dir, 'users.txt')}
pool_mode = transaction
max_client_conn = 1000
default_pool_size = ${opts.poolSize}
ignore_startup_parameters = options
server_reset_query =
server_login_retry = ${SERVER_LOGIN_RETRY_S}
logfile = ${log}
`;
  await writeFile(join(dir, 'users.txt'), `"postgres" ""\n"${role}" ""\n`, { mode: 0o644 });
  await writeFile(join(dir, 'pgbouncer.ini'), ini, { mode: 0o644 });
  let child: ChildProcess | null = null;
  const logText = () => readFile(log, 'utf8').catch(() => '');
  const start = async () => {
    // PgBouncer refuses to run as root: -u switches to the postgres user.
    const c = spawn(BINARY, ['-u', 'postgres', join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
    child = c;
    const deadline = Date.now() + 10_000;
    // Its log says it listens, or why it could not (a port taken by someone else meanwhile).
    for (;;) {
      const text = await logText();
      if (/listening on (127\.0\.0\.1:|unix:)/.test(text)) return;
      if (/Address already in use/.test(text) || c.exitCode !== null) {
        c.kill('SIGKILL');
        throw /Address already in use/.test(text)
          ? new PortTaken(`port ${port} taken`)
          : new Error(`pgbouncer exited:\n${text}`);
      }
      if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port}:\n${text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const c = child as ChildProcess | null;
    if (!c || c.exitCode !== null) return;
    await new Promise((r) => {
      c.once('exit', r);
      c.kill('SIGINT');
    });
  };
  const cleanup = async () => {
    await stop();
    await rm(dir, { recursive: true, force: true });
    await admin((c) => c.query(`drop role if exists ${role}`)).catch(() => {});
  };
  try {
    await start();
  } catch (err) {
    await cleanup();
    throw err;
  }
  return {
    port,
    role,
    url: (schema) =>
      opts.socketDir
        ? `postgres://${role}@localhost/${schema}?host=${encodeURIComponent(opts.socketDir)}&port=${port}`
        : `postgres://${role}@127.0.0.1:${port}/${schema}`,
    stop,
    cleanup,
  };
}

/** Connections the server has from a role (pg_stat_activity). */
export function serverConnections(role: string): Promise<number> {
  return admin(async (c) => {
    const { rows } = await c.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where usename = $1',
      [role],
    );
    return rows[0].n;
  });
}
