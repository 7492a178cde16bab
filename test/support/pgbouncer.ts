import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect as tcp } from 'node:net';
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
 * with at most `poolSize` server connections, logging in as a role of its own.
 */
export async function startPgBouncer(opts: {
  database: string;
  schemas: string[];
  poolSize: number;
  port?: number;
}): Promise<PgBouncer> {
  const port = opts.port ?? (await freePort());
  const role = `studium_bouncer_${port}`;
  await admin((c) =>
    c.query(`do $$ begin create role ${role} login superuser; exception when duplicate_object then null; end $$`),
  );
  const dir = await mkdtemp(join(tmpdir(), 'studium-pgbouncer-'));
  // PgBouncer runs as postgres (below) and writes its log here.
  await chmod(dir, 0o777);
  const databases = opts.schemas.map(
    (s) =>
      `${s} = host=127.0.0.1 port=5432 dbname=${opts.database} user=${role} pool_size=${opts.poolSize} ` +
      `max_db_connections=${opts.poolSize} connect_query='set search_path to ${s}'`,
  );
  const ini = `[databases]
${databases.join('\n')}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'users.txt')}
pool_mode = transaction
max_client_conn = 1000
default_pool_size = ${opts.poolSize}
ignore_startup_parameters = options
server_reset_query =
logfile = ${join(dir, 'pgbouncer.log')}
`;
  await writeFile(join(dir, 'users.txt'), `"postgres" ""\n"${role}" ""\n`, { mode: 0o644 });
  await writeFile(join(dir, 'pgbouncer.ini'), ini, { mode: 0o644 });
  let child: ChildProcess | null = null;
  const start = async () => {
    // PgBouncer refuses to run as root: -u switches to the postgres user.
    child = spawn(BINARY, ['-u', 'postgres', join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await listening(port))) {
      if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await start();
  const stop = async () => {
    const c = child as ChildProcess | null;
    if (!c || c.exitCode !== null) return;
    await new Promise((r) => {
      c.once('exit', r);
      c.kill('SIGINT');
    });
  };
  return {
    port,
    role,
    url: (schema) => `postgres://${role}@127.0.0.1:${port}/${schema}`,
    stop,
    async cleanup() {
      await stop();
      await rm(dir, { recursive: true, force: true });
      await admin((c) => c.query(`drop role if exists ${role}`)).catch(() => {});
    },
  };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcp(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
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
