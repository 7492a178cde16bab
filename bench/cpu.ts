import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (ms) of a process so far, from /proc (0 when it is gone). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

function procName(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** The pid of the machine's nats-server, when one runs. */
export function natsPid(): number | undefined {
  const pid = readdirSync('/proc').find((d) => /^\d+$/.test(d) && procName(d) === 'nats-server');
  return pid ? Number(pid) : undefined;
}

/** Busy CPU time (ms) of the whole machine so far. */
export function machineMs(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const idle = ticks[3] + ticks[4];
  return ((ticks.reduce((a, b) => a + b, 0) - idle) * 1000) / 100;
}

/** What PostgreSQL says of the bench database: its backends, and its transaction and row counters. */
export interface DbCounters {
  pids: number[];
  counters: Record<string, number>;
}

/**
 * Where the CPU of a case goes: named processes, PostgreSQL backends of the bench database, the
 * machine; plus the database's counters (transactions, rows) over the same spans.
 */
export class CpuMeter {
  readonly spent = new Map<string, number>();
  constructor(
    private readonly procs: Record<string, number>,
    private readonly db: () => Promise<DbCounters>,
  ) {}
  /** CPU ms so far by name; each PostgreSQL backend by its pid (backends come and go). */
  async snapshot(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const own = process.cpuUsage();
    out.set('client', (own.user + own.system) / 1000);
    for (const [name, pid] of Object.entries(this.procs)) out.set(name, cpuMs(pid));
    const { pids, counters } = await this.db();
    for (const pid of pids) out.set(`postgres:${pid}`, cpuMs(pid));
    for (const [k, v] of Object.entries(counters)) out.set(`pg ${k}`, v);
    out.set('machine', machineMs());
    return out;
  }
  add(before: Map<string, number>, after: Map<string, number>) {
    for (const [k, v] of after) {
      const name = k.startsWith('postgres:') ? 'postgres' : k;
      this.spent.set(name, (this.spent.get(name) ?? 0) + v - (before.get(k) ?? 0));
    }
  }
}

/** Read and write system calls of a process so far (socket and pipe I/O: queries, NATS messages). */
export function syscalls(pid: number): number {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const get = (k: string) => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(io)?.[1] ?? 0);
    return get('syscr') + get('syscw');
  } catch {
    return 0;
  }
}
