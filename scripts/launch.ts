// Runs the platform's deployables as processes and tells when each is ready: `npm start` and the
// smoke tests of what ships (from sources with tsx, or compiled from dist/ with plain node).
// Each process's /readyz is asked on the port it reports in its log (`health listening` for the
// services, `edge listening` for the edge), so health ports may be fixed or taken free (port 0).
import { type ChildProcess, spawn } from 'node:child_process';

/** A deployable as a running process. */
export interface Running {
  name: string;
  child: ChildProcess;
  /** The port its /readyz answers on, once the process has logged it. */
  port(): number | null;
  /** The last line it printed (a log line, or whatever it wrote before it had a logger). */
  lastLine(): string;
  /** Everything it printed (the last 256 KB). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const KEEP = 256 * 1024;

/**
 * Starts `argv` (argv[0] is the executable) with `env` as its whole environment besides PATH and
 * HOME; `echo` gets each line it prints (e.g. to show warnings on the console).
 */
export function launch(
  name: string,
  argv: string[],
  opts: { cwd: string; env: Record<string, string | undefined>; echo?: (line: string, level: number | null) => void },
): Running {
  const [command, ...args] = argv as [string, ...string[]];
  const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let last = '';
  let port: number | null = null;
  const partial = { stdout: '', stderr: '' };
  const line = (text: string) => {
    if (!text.trim()) return;
    last = text;
    let level: number | null = null;
    if (text.startsWith('{')) {
      try {
        const entry = JSON.parse(text) as { msg?: string; level?: number; health?: unknown; port?: unknown };
        level = typeof entry.level === 'number' ? entry.level : null;
        if (entry.msg === 'health listening' && typeof entry.health === 'number') port = entry.health;
        if (entry.msg === 'edge listening' && typeof entry.port === 'number') port = entry.port;
      } catch {
        // Not a log line: kept as printed.
      }
    }
    opts.echo?.(text, level);
  };
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      out = (out + text).slice(-KEEP);
      const lines = (partial[stream] + text).split('\n');
      partial[stream] = lines.pop() ?? '';
      for (const l of lines) line(l);
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => {
      for (const stream of ['stdout', 'stderr'] as const) line(partial[stream]);
      done({ code, signal });
    }),
  );
  return { name, child, port: () => port, lastLine: () => last, output: () => out, exited };
}

/** Why a deployable is not ready: its /readyz answer (or none yet) and its last log line. */
export interface NotReady {
  name: string;
  why: string;
  lastLine: string;
}

async function readiness(r: Running, host: string): Promise<string | null> {
  if (r.child.exitCode !== null || r.child.signalCode !== null) {
    return `exited (${r.child.exitCode ?? r.child.signalCode})`;
  }
  const port = r.port();
  if (port === null) return 'no health port yet';
  try {
    const res = await fetch(`http://${host}:${port}/readyz`, { signal: AbortSignal.timeout(3000) });
    if (res.ok) return null;
    return `/readyz ${res.status} ${(await res.text()).slice(0, 200)}`;
  } catch (err) {
    return `/readyz unreachable: ${(err as Error).message}`;
  }
}

/**
 * Waits until every deployable's /readyz answers 200, or `timeoutMs` passes, or one exits.
 * Resolves with the ones that are not ready (empty: all are).
 */
export async function waitReady(running: Running[], timeoutMs: number, host = '127.0.0.1'): Promise<NotReady[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(running.map(async (r) => ({ r, why: await readiness(r, host) })));
    const waiting = states.filter((s) => s.why !== null);
    const gone = waiting.some((s) => s.why?.startsWith('exited'));
    if (!waiting.length || gone || Date.now() > deadline) {
      return waiting.map(({ r, why }) => ({ name: r.name, why: why ?? '', lastLine: r.lastLine() }));
    }
    await new Promise((done) => setTimeout(done, 250));
  }
}

/**
 * SIGTERM to every process, then SIGKILL to those still running after `graceMs`. Resolves with
 * each one's exit (a SIGKILL shows as signal SIGKILL).
 */
export async function stopAll(running: Running[], graceMs = 10_000) {
  for (const r of running) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const r of running) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  }, graceMs);
  try {
    return await Promise.all(running.map(async (r) => ({ name: r.name, ...(await r.exited) })));
  } finally {
    clearTimeout(timer);
  }
}

/** pino's level numbers by name. */
export const LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: 100,
};
