import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type pg from 'pg';

// With BENCH_PG_LOG=1 every statement of the run's database goes to the server's log with its
// duration. This reads the part of that log a phase wrote and counts the database's round trips
// by whom they serve (pg_stat_statements is not preloaded on a shared server, and pg_stat_database
// counts transactions, not statements). Each `execute` (an extended-protocol statement) and each
// simple `statement` is one round trip; a transaction's BEGIN and COMMIT are counted with the
// statement that opened it, per backend. The roles are told by the statements' texts (see
// `roleOf`): a heuristic for a bench, kept beside the texts it names.

export const ROLES = [
  'tools',
  'access check',
  'consumer marks',
  'consumer projections',
  'reporting',
  'relay passes',
] as const;

export type Role = (typeof ROLES)[number];

export interface Census {
  /** Round trips by role, the statements themselves. */
  statements: Map<Role, number>;
  /** BEGIN and COMMIT (or ROLLBACK) round trips, by the role of the transaction's first statement. */
  control: Map<Role, number>;
}

/** Whom a statement serves, by its text (lower case, whitespace folded). */
function roleOf(text: string): Role {
  // libs/platform outbox.ts: a relay's claim and its settle, each one simple query of several
  // statements that runs as its own implicit transaction (no BEGIN or COMMIT of its own).
  if (text.startsWith('set local synchronous_commit')) return 'relay passes';
  // libs/platform consumer.ts: the consumer's exactly-once mark, first in its transaction.
  if (text.includes('processed_events')) return 'consumer marks';
  // reporting: its generation row and the generation's own schema (reporting_g<n>).
  if (/"?reporting_g\d+"?\./.test(text) || text.startsWith('select current from generation')) return 'reporting';
  // enrollment's course_access (enrollment.repository.ts): every lesson tool's access check.
  if (text.includes("json_build_object('space', space, 'organization', organization")) return 'access check';
  return 'tools';
}

const LINE =
  /^\S+ \S+(?: \S+)? \[(\d+)\] \S*@(\S+) LOG: {2}duration: [\d.]+ ms {2}(parse|bind|execute|statement)[^:]*: ?(.*)$/;

/** The server log the statements go to, when this process can read it; null otherwise. */
export async function serverLogFile(client: pg.Client): Promise<string | null> {
  if (process.env.BENCH_PG_LOG_FILE) return process.env.BENCH_PG_LOG_FILE;
  // pg_current_logfile and data_directory are for superusers (and pg_monitor): without, no census.
  const row = await client
    .query<{ file: string | null; dir: string; major: string }>(
      `select pg_current_logfile() as file, current_setting('data_directory') as dir,
         split_part(current_setting('server_version'), '.', 1) as major`,
    )
    .then((r) => r.rows[0])
    .catch(() => undefined);
  if (!row) return null;
  const candidates = [
    row.file ? (row.file.startsWith('/') ? row.file : `${row.dir}/${row.file}`) : null,
    // Debian's clusters log to stderr, which pg_ctlcluster writes here.
    `/var/log/postgresql/postgresql-${row.major}-main.log`,
  ];
  return candidates.find((f): f is string => !!f && existsSync(f)) ?? null;
}

/** Where the log ends now: a phase's census reads from one mark to the next. */
export function logMark(file: string): number {
  return statSync(file).size;
}

/** The round trips of database `db` the log holds between two marks. */
export function censusBetween(file: string, db: string, from: number, to: number, into?: Census): Census {
  const census = into ?? { statements: new Map(), control: new Map() };
  const length = Math.max(0, to - from);
  const buffer = Buffer.alloc(length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, length, from);
  } finally {
    closeSync(fd);
  }
  // Per backend: the role of its open transaction (null: BEGIN seen, no statement yet).
  const open = new Map<string, Role | null>();
  const add = (map: Map<Role, number>, role: Role, n = 1) => map.set(role, (map.get(role) ?? 0) + n);
  const lines = buffer.toString('utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = LINE.exec(lines[i] as string);
    if (!m || m[2] !== db || m[3] === 'parse' || m[3] === 'bind') continue;
    const pid = m[1] as string;
    // A statement of several lines goes on in lines that begin with a tab.
    let raw = m[4] ?? '';
    while (lines[i + 1]?.startsWith('\t')) raw += ` ${lines[++i]}`;
    const text = raw.replace(/\s+/g, ' ').trim().toLowerCase();
    if (text === 'begin' || text.startsWith('start transaction')) {
      open.set(pid, null);
      continue;
    }
    if (text === 'commit' || text === 'rollback') {
      const role = open.get(pid);
      add(census.control, role ?? 'tools', open.has(pid) ? 2 : 1);
      open.delete(pid);
      continue;
    }
    let role = roleOf(text);
    const current = open.get(pid);
    if (open.has(pid) && current === null) open.set(pid, role);
    // The statements a consumer runs after its mark are its projection.
    else if (current === 'consumer marks' && role === 'tools') role = 'consumer projections';
    add(census.statements, role);
  }
  return census;
}

/** The census as table rows: round trips per mix call by role, and their share. */
export function censusRows(census: Census, calls: number): string[] {
  const total = [...census.statements.values(), ...census.control.values()].reduce((a, b) => a + b, 0);
  if (!total || !calls) return [];
  const rows = [
    `\ndatabase round trips per mix call: ${(total / calls).toFixed(2)} (${total} in the mix phases; BEGIN and COMMIT with the statement that opened the transaction)`,
    '\n| role | statements per call | BEGIN/COMMIT per call | share |\n|---|---:|---:|---:|',
  ];
  for (const role of ROLES) {
    const s = census.statements.get(role) ?? 0;
    const c = census.control.get(role) ?? 0;
    if (!s && !c) continue;
    rows.push(
      `| ${role} | ${(s / calls).toFixed(2)} | ${(c / calls).toFixed(2)} | ${((100 * (s + c)) / total).toFixed(1)} % |`,
    );
  }
  return rows;
}
