import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { traceQueries } from './db-tracing.ts';
import type { Logger } from './log.ts';

// Timestamps stay ISO strings end to end; bigint counts become numbers.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (v) => new Date(v).toISOString());
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** A service's database handle: Kysely on a pool whose search_path is the service's own schema. */
export interface Database<DB> {
  db: Kysely<DB>;
  pool: pg.Pool;
  schema: string;
  close(): Promise<void>;
}

/** How a service's pool connects (see `DB_POOL_MAX`, `DATABASE_DIRECT_URL`, `DB_PREPARED_STATEMENTS`). */
export interface PoolSettings {
  /** Connections of the pool (default 10). */
  max?: number;
  /** A URL that bypasses the pooler, for LISTEN (the outbox relay); unset: `url`. */
  directUrl?: string;
  /** False: named prepared statements run unnamed (PgBouncer < 1.21 in transaction mode). */
  preparedStatements?: boolean;
}

/**
 * A pg client that drops the `name` of a query config: behind a transaction pooler a statement
 * prepared on one server connection is not there on the next, so they must run unnamed.
 */
class UnnamedClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this only rewrites the config.
  override query(config: any, ...rest: any[]): any {
    const unnamed = config && typeof config === 'object' && config.name ? { ...config, name: undefined } : config;
    return (super.query as (...a: unknown[]) => unknown)(unnamed, ...rest);
  }
}

/** The channel outbox relays LISTEN on (the payload names the schema whose outbox has new rows). */
export const OUTBOX_NOTIFY_CHANNEL = 'studium_outbox';

/** Per pool: what to run when one of its transactions (or statements) committed new outbox rows. */
const outboxWakers = new WeakMap<pg.Pool, () => void>();

/**
 * Makes `wake` run after every commit on `pool` that inserted outbox rows (the outbox relay of this
 * process registers itself; see {@link watchOutbox}). Returns the unregistration.
 */
export function onOutboxCommit(pool: pg.Pool, wake: () => void): () => void {
  outboxWakers.set(pool, wake);
  return () => {
    if (outboxWakers.get(pool) === wake) outboxWakers.delete(pool);
  };
}

/**
 * The wake-up after a commit that added events. With a relay in this process, it is woken in
 * process: no NOTIFY, which PostgreSQL delivers to every listening service on the database (each
 * wakes, reads and drops it) and which serializes every notifying commit on one database-wide lock.
 * Without one (a script, a process that only writes), a NOTIFY after the commit wakes the relays
 * of the other processes, as one in the write itself would.
 */
function outboxCommitted(pool: pg.Pool): void {
  const wake = outboxWakers.get(pool);
  if (wake) {
    wake();
    return;
  }
  pool.query(`select pg_notify('${OUTBOX_NOTIFY_CHANNEL}', current_schema())`).catch(() => {
    // Not notified: the relays' polling publishes the events.
  });
}

/**
 * Watches a pool client's statements for outbox inserts and calls {@link outboxCommitted} once
 * they are committed: after the COMMIT of a transaction that ran one, or after the statement
 * itself when it ran outside a transaction. What keeps it exact: every statement of a client goes
 * through its `query` (Kysely's transactions run BEGIN, their statements and COMMIT or ROLLBACK on
 * one checked-out client), a statement writes the outbox only with an `insert into outbox` in its
 * text (addEvent, addEventsFrom and the services' own one-statement writes), and a wake-up too
 * many costs one empty relay pass, never an event. A write that inserts through a function
 * (mark_goal_write) wakes its relay itself.
 */
function watchOutbox(client: pg.PoolClient, pool: pg.Pool): void {
  const original = client.query as (...args: unknown[]) => unknown;
  const transaction = { open: false };
  inTransaction.set(client, transaction);
  let wrote = false;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = function watched(
    this: unknown,
    ...args: unknown[]
  ) {
    const first = args[0] as string | { text?: string; submit?: unknown } | undefined;
    const text = typeof first === 'string' ? first : typeof first?.submit === 'function' ? '' : (first?.text ?? '');
    let wakeOnSuccess = false;
    const head = text.trimStart().slice(0, 17).toLowerCase();
    const short = text.length <= 64;
    if (head.startsWith('begin') || head.startsWith('start transaction')) {
      transaction.open = true;
      wrote = false;
    } else if (short && (head.trimEnd() === 'commit' || head.trimEnd() === 'end')) {
      wakeOnSuccess = wrote;
      transaction.open = false;
      wrote = false;
    } else if (short && (head.trimEnd() === 'rollback' || head.trimEnd() === 'abort')) {
      transaction.open = false;
      wrote = false;
    } else if (text.includes('insert into outbox')) {
      if (transaction.open) wrote = true;
      else wakeOnSuccess = true;
    }
    if (!wakeOnSuccess) return original.apply(this, args);
    const last = args.at(-1);
    if (typeof last === 'function') {
      const done = last as (err: unknown, res: unknown) => void;
      return original.apply(this, [
        ...args.slice(0, -1),
        (err: unknown, res: unknown) => {
          if (!err) outboxCommitted(pool);
          done(err, res);
        },
      ]);
    }
    const result = original.apply(this, args) as Promise<unknown>;
    result.then(
      () => outboxCommitted(pool),
      () => {},
    );
    return result;
  };
}

/** Texts this process names at most, over its whole life (see {@link preparedName}). */
const PREPARED_MAX = 500;
/** Runs of a statement text before it is prepared (once-off texts never are). */
const PREPARE_AFTER = 3;
/** Texts counted towards {@link PREPARE_AFTER} at most; the count starts over when full. */
const SEEN_MAX = 5000;
const preparedNames = new Map<string, string>();
const seenTexts = new Map<string, number>();
/** Texts whose prepared plan PostgreSQL refused after a table changed under it: not named again here (unless runNamed's restore shows the error was the statement's own). */
const unpreparable = new Set<string>();
/** Per text, how many times it lost its name (only named texts: bounded like them); see runNamed's restore. */
const forgets = new Map<string, number>();
let namesGiven = 0;

/**
 * The name a statement text runs under as a prepared statement, or undefined while it runs
 * unnamed. Kysely sends every statement unnamed, so PostgreSQL parsed and planned each one on every
 * run: in the lesson loop parse and bind (planning) took three times the execution (the access
 * check, a statement of 40 lines, 0.9 ms of planning for 0.05 ms of work). A text that comes back
 * gets a name: pg parses it once per connection, and PostgreSQL keeps its plan (a generic one
 * after five runs when that costs no more than the custom ones). What keeps it correct: one name
 * per exact text (a name never stands for two texts), the schema is the pool's fixed
 * search_path, PostgreSQL re-plans a prepared statement itself when a table it reads changes,
 * and behind a transaction pooler (`DB_PREPARED_STATEMENTS=false`) nothing is named.
 * Bounded: at most {@link PREPARED_MAX} texts are ever named (texts built with a varying number of
 * parameters fill it at worst, and the rest then runs unnamed, as before).
 *
 * A migration of another replica can change a table under a prepared statement: its row type
 * (`select *` after a column was added, a column's type widened: PostgreSQL refuses the statement,
 * 0A000 "cached plan must not change result type"), or the column a parameter's type was inferred
 * from at prepare time (an integer column widened to bigint: the prepared parameter is still an
 * integer, and a value past it fails with 22003). So statements with a `*` column list are never
 * named, and a named text that fails with a plan, data (22…) or datatype-mismatch error runs
 * unnamed from then on (with the types of the tables as they are now): outside a transaction it
 * is run again at once (a failed statement changed nothing), inside one the transaction fails
 * once (its caller's retry, or the consumer's redelivery, then runs it unnamed). A statement that
 * fails that way for its own reasons keeps its name when it ran alone (the unnamed run fails with
 * the same code); inside a transaction it loses it. Statements a repository names itself
 * (a query config with a `name`) fall back the same way.
 */
function preparedName(text: string): string | undefined {
  const named = preparedNames.get(text);
  // Names given, not names held: a text that lost its name stays prepared on the connections that
  // ran it (nothing deallocates it), so a freed slot must not go to yet another text.
  if (named !== undefined || namesGiven >= PREPARED_MAX) return named;
  const seen = (seenTexts.get(text) ?? 0) + 1;
  if (seen < PREPARE_AFTER) {
    if (seenTexts.size >= SEEN_MAX) seenTexts.clear();
    seenTexts.set(text, seen);
    return undefined;
  }
  seenTexts.delete(text);
  // Only texts that were named can be unpreparable (at most PREPARED_MAX); a `*` text is tested
  // again instead of kept, so texts that differ in their literals cannot grow the set.
  if (unpreparable.has(text) || STAR_COLUMNS.test(text)) return undefined;
  const name = `studium_${++namesGiven}`;
  preparedNames.set(text, name);
  return name;
}

/** A `*` column list (`select *`, `"t".*`, `returning *`): its row type follows the table's. */
const STAR_COLUMNS = /(^|[\s,(])("?\w+"?\.)*\*(\s|,|;|$)/;

/** An error a prepared statement can owe to a table that changed under it (see {@link preparedName}). */
function planOutdated(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === '0A000' || code === '42804' || code.startsWith('22'));
}

/** Per pool client: whether it is inside a transaction (kept by {@link watchOutbox}). */
const inTransaction = new WeakMap<object, { open: boolean }>();

/** Makes a pool client run repeated parameterised statements as named prepared ones (see {@link preparedName}). */
function prepareRepeated(client: pg.PoolClient): void {
  const original = client.query as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = function prepared(
    this: unknown,
    ...args: unknown[]
  ) {
    const [first, values] = args;
    // A statement a repository names itself (a query config with its own name: mark_goal_write,
    // the course state, the list stamps) gets the same fallback, under its own name.
    if (isNamedConfig(first)) {
      const unnamed = [{ ...first, name: undefined }, ...args.slice(1)];
      if (unpreparable.has(first.text)) return original.apply(this, unnamed);
      return runNamed(
        this,
        first.text,
        args,
        unnamed,
        () => unpreparable.add(first.text),
        () => unpreparable.delete(first.text),
      );
    }
    const text = first;
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) return original.apply(this, args);
    const name = preparedName(text);
    if (name === undefined) return original.apply(this, args);
    const rest = args.slice(2);
    return runNamed(
      this,
      text,
      [{ name, text, values }, ...rest],
      args,
      () => {
        if (preparedNames.get(text) === name) preparedNames.delete(text);
        unpreparable.add(text);
      },
      () => {
        unpreparable.delete(text);
        if (!preparedNames.has(text)) preparedNames.set(text, name);
      },
    );
  };

  /**
   * Runs a named statement (`namedArgs`); when it fails because a table changed under its
   * prepared plan, `forget` takes its name away and, if it was sent outside a transaction, the
   * same statement runs at once unnamed (`unnamedArgs`, pg's arguments with the same callback).
   * When that unnamed run fails with the same code, the error was the statement's own (a division
   * by zero, a value out of range for the column itself), not the plan's: `restore` gives the name
   * back, so bad input cannot strip a hot statement of its prepared plan. Only when this call's
   * forget was the text's only one since it was sent, and none came after: another connection's
   * forget meanwhile may have been a real outdated plan, which a restore would bring back.
   */
  function runNamed(
    self: unknown,
    text: string,
    namedArgs: unknown[],
    unnamedArgs: unknown[],
    forget: () => void,
    restore: () => void,
  ): unknown {
    // Whether this statement runs inside a transaction, as it was sent (watchOutbox, outside this
    // wrapper, has seen it): by the time its error comes back, a pipelined COMMIT may already have
    // been sent, and a retry would then run the statement on its own after its transaction.
    const alone = !inTransaction.get(client)?.open;
    const sentAt = forgets.get(text) ?? 0;
    let mine = -1;
    const outdated = (err: unknown) => {
      if (!planOutdated(err)) return false;
      forget();
      mine = (forgets.get(text) ?? 0) + 1;
      forgets.set(text, mine);
      return alone;
    };
    const restoreIfOnlyMine = () => {
      if (mine === sentAt + 1 && forgets.get(text) === mine) restore();
    };
    const sameCode = (first: unknown, again: unknown) =>
      (again as { code?: unknown } | null)?.code === (first as { code?: unknown }).code;
    const last = namedArgs.at(-1);
    if (typeof last === 'function') {
      const done = last as (err: unknown, res: unknown) => void;
      return original.apply(self, [
        ...namedArgs.slice(0, -1),
        (err: unknown, res: unknown) => {
          if (!outdated(err)) return done(err, res);
          original.apply(self, [
            ...unnamedArgs.slice(0, -1),
            (again: unknown, res2: unknown) => {
              if (again && sameCode(err, again)) restoreIfOnlyMine();
              done(again, res2);
            },
          ]);
        },
      ]);
    }
    const result = original.apply(self, namedArgs) as Promise<unknown> | undefined;
    // A config with its own callback gets no promise back from pg: it answers that callback unchanged.
    if (typeof result?.catch !== 'function') return result;
    return result.catch((err) => {
      if (!outdated(err)) throw err;
      return (original.apply(self, unnamedArgs) as Promise<unknown>).catch((again: unknown) => {
        if (sameCode(err, again)) restoreIfOnlyMine();
        throw again;
      });
    });
  }
}

/** A query config that names its own prepared statement (not a submittable such as a cursor). */
function isNamedConfig(value: unknown): value is { name: string; text: string } {
  if (!value || typeof value !== 'object') return false;
  const config = value as { name?: unknown; text?: unknown; submit?: unknown };
  return (
    typeof config.name === 'string' &&
    config.name !== '' &&
    typeof config.text === 'string' &&
    typeof config.submit !== 'function'
  );
}

/** Statements this process's pools sent so far (see {@link countQueries}). */
let queriesSent = 0;

/**
 * Statements this process sent to PostgreSQL through its pools so far, BEGIN and COMMIT included:
 * each is one round trip (pg sends a statement's parse, bind and execute together and waits for
 * the answer). Served on /metrics as `studium_db_queries_total`; the lesson-loop bench divides it
 * by its calls.
 */
export function queriesSentSoFar(): number {
  return queriesSent;
}

/**
 * Counts every `query` of a pool client. Wrapped first, so it is the innermost wrapper and sees
 * each statement that reaches pg, also the second, unnamed run of one whose prepared plan was
 * outdated (prepareRepeated); a plain increment, so it costs nothing worth measuring.
 */
function countQueries(client: pg.PoolClient): void {
  const original = client.query as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = function counted(
    this: unknown,
    ...args: unknown[]
  ) {
    queriesSent++;
    return original.apply(this, args);
  };
}

/** The pool LISTEN connections come from, per service pool (the direct one when configured). */
const listenPools = new WeakMap<pg.Pool, pg.Pool>();

/** Where a long-lived LISTEN connection for `pool` comes from: the direct pool, or `pool` itself. */
export function listenPoolOf(pool: pg.Pool): pg.Pool {
  return listenPools.get(pool) ?? pool;
}

function newPool(url: string, schema: string, max: number, prepared: boolean): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    options: `-c search_path=${schema}`,
    ...(prepared ? {} : { Client: UnnamedClient }),
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
  // A checked-out client (a Kysely transaction, the outbox relay) has no pool handler: a lost
  // connection would emit an unhandled 'error' and crash the process. Its queries reject anyway.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    countQueries(client);
    if (prepared) prepareRepeated(client);
    traceQueries(client);
    watchOutbox(client, pool);
  });
  return pool;
}

/** Opens a pool bound to one schema; services never read another schema. A number is the pool size. */
export function openDatabase<DB>(url: string, schema: string, settings: number | PoolSettings = {}): Database<DB> {
  assertIdentifier(schema);
  const opts = typeof settings === 'number' ? { max: settings } : settings;
  const pool = newPool(url, schema, opts.max ?? 10, opts.preparedStatements ?? true);
  // One connection for the relay's LISTEN, straight to PostgreSQL: a transaction pooler would
  // hand the LISTEN to a server connection that other clients then use.
  const direct = opts.directUrl ? newPool(opts.directUrl, schema, 1, true) : null;
  if (direct) listenPools.set(pool, direct);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    schema,
    async close() {
      await db.destroy();
      await direct?.end();
    },
  };
}

/** Creates the database named in the URL when it does not exist (used by `npm start` and tests). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  assertIdentifier(name);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) {
      await client.query(`create database "${name}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created meanwhile by a sibling process
      });
    }
  } finally {
    await client.end();
  }
}

/** Drops a database (tests only). */
export async function dropDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  assertIdentifier(name);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/**
 * Applies the plain SQL files of each directory (in the order given, files in name order), each in
 * its own transaction that first takes a transaction-level advisory lock, so two replicas starting
 * together never race. Nothing spans two transactions (no session lock, no session search_path),
 * so it works through a transaction pooler (PgBouncer) as well as on PostgreSQL itself. Applied
 * names are kept in `<schema>.schema_migrations`.
 */
export async function migrate(pool: pg.Pool, schema: string, dirs: string[], log?: Logger): Promise<string[]> {
  assertIdentifier(schema);
  const files: { name: string; path: string }[] = [];
  for (const dir of dirs) {
    const names = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
    files.push(...names.map((name) => ({ name, path: join(dir, name) })));
  }
  const lockKey = `studium.migrate.${schema}`;
  /** Runs `fn` in one transaction under the schema's migration lock, with the schema on the search path. */
  const locked = async <T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query('select pg_advisory_xact_lock(hashtext($1))', [lockKey]);
      await client.query(`set local search_path to "${schema}"`);
      const result = await fn(client);
      await client.query('commit');
      return result;
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  };
  const done = await locked(async (client) => {
    await client.query(`create schema if not exists "${schema}"`);
    await client.query(
      'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())',
    );
    return new Set((await client.query('select name from schema_migrations')).rows.map((r) => r.name));
  });
  const applied: string[] = [];
  for (const { name: file, path } of files) {
    if (done.has(file)) continue;
    const sql = await readFile(path, 'utf8');
    const ran = await locked(async (client) => {
      // A sibling may have applied it between our read and our lock.
      const { rowCount } = await client.query('select 1 from schema_migrations where name = $1', [file]);
      if (rowCount) return false;
      try {
        await client.query(sql);
      } catch (err) {
        // The SQLSTATE goes along: a migration's own error (a syntax error, a constraint) is
        // permanent, a lost connection is not (classifyPgError).
        throw Object.assign(new Error(`migration ${schema}/${file} failed: ${(err as Error).message}`), {
          code: (err as { code?: string }).code,
          migration: true,
        });
      }
      await client.query('insert into schema_migrations (name) values ($1)', [file]);
      return true;
    });
    if (!ran) continue;
    applied.push(file);
    log?.info({ schema, file }, 'migration applied');
  }
  return applied;
}

function assertIdentifier(name: string): void {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a safe SQL identifier: ${name}`);
}

/** The platform's own migrations (outbox, processed events); pass first to {@link migrate} when a service uses them. */
export const PLATFORM_MIGRATIONS = new URL('../migrations', import.meta.url).pathname;
