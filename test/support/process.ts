import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/** A service running as its own process (`node --import tsx <entry>`), with what it printed. */
export interface ServiceProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves when `text` appears in the output (rejects on exit or after `timeoutMs`). */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts a service's main.ts as a real process (no tsx wrapper: a signal reaches the service
 * itself) with the test's environment on top of this process's.
 */
export function spawnService(entry: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(root, entry)], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  const listeners = new Set<() => void>();
  const seen = (chunk: Buffer) => {
    chunks.push(chunk.toString());
    for (const l of listeners) l();
  };
  child.stdout?.on('data', seen);
  child.stderr?.on('data', seen);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  let gone = false;
  void exited.then(() => {
    gone = true;
    for (const l of listeners) l();
  });
  const output = () => chunks.join('');
  return {
    child,
    output,
    exited,
    waitFor(text, timeoutMs = 60_000) {
      return new Promise((ready, fail) => {
        const check = () => {
          if (output().includes(text)) return finish(ready);
          if (gone) finish(() => fail(new Error(`${entry} exited before "${text}":\n${output()}`)));
        };
        const timer = setTimeout(
          () => finish(() => fail(new Error(`${entry}: no "${text}" in ${timeoutMs} ms:\n${output()}`))),
          timeoutMs,
        );
        const finish = (fn: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          fn();
        };
        listeners.add(check);
        check();
      });
    },
    async kill(signal = 'SIGKILL') {
      if (!gone) child.kill(signal);
      return exited;
    },
  };
}
