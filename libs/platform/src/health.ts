import { createServer, type Server } from 'node:http';
import { Counter, collectDefaultMetrics, Registry } from 'prom-client';
import { queriesSentSoFar } from './db.ts';

/** A readiness check: resolves when the dependency answers. */
export type Check = () => Promise<unknown>;

/**
 * Prometheus registry of one process, with Node's default metrics and the statements its pools
 * sent to PostgreSQL (`studium_db_queries_total`, read when scraped).
 */
export function createMetrics(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  new Counter({
    name: 'studium_db_queries_total',
    help: 'Statements this process sent to PostgreSQL, each one round trip (BEGIN and COMMIT included)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(queriesSentSoFar());
    },
  });
  return registry;
}

/** Runs every check with a deadline; returns the names that failed. */
export async function runChecks(checks: Record<string, Check>, timeoutMs = 2000): Promise<string[]> {
  const failed: string[] = [];
  await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          check(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
          }),
        ]);
      } catch {
        failed.push(name);
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return failed;
}

/**
 * Liveness from readiness: a process is alive while what it needs has answered within the last
 * `budgetMs` (counted from the start until the first success). A process that never joins the bus,
 * or loses its database for good, then fails /healthz, so the orchestrator restarts it instead of
 * leaving it un-Ready forever. The budget is the startup budget (k8s: the startupProbe's 2 s × 60).
 */
export function liveness(budgetMs: number, now: () => number = Date.now) {
  let lastOk = now();
  return {
    /** Records a passing readiness check. */
    ok(): void {
      lastOk = now();
    },
    /** ms since what the process needs last answered. */
    unreachableFor(): number {
      return now() - lastOk;
    },
    alive(): boolean {
      return now() - lastOk <= budgetMs;
    },
  };
}
export type Liveness = ReturnType<typeof liveness>;

/** Runs the readiness checks for /healthz and /readyz, recording a pass in `live`. */
export async function probe(checks: Record<string, Check>, live: Liveness) {
  const failed = await runChecks(checks);
  if (!failed.length) live.ok();
  return {
    ready: { status: failed.length ? 'unavailable' : 'ok', failed },
    alive: live.alive(),
    health: live.alive() ? { status: 'ok' } : { status: 'unreachable', failed, for_ms: live.unreachableFor() },
  };
}

/**
 * The small HTTP server non-HTTP services open for Kubernetes probes and Prometheus. Port 0 takes
 * a free port: the server's address says which (the services log it as `health`).
 */
export function startHealthServer(
  port: number,
  checks: Record<string, Check>,
  registry: Registry,
  opts: { budgetMs?: number } = {},
): Promise<Server> {
  const live = liveness(opts.budgetMs ?? 120_000);
  const server = createServer((req, res) => {
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/healthz') {
      void probe(checks, live).then((p) => json(p.alive ? 200 : 503, p.health));
    } else if (req.url === '/readyz') {
      void probe(checks, live).then((p) => json(p.ready.failed.length ? 503 : 200, p.ready));
    } else if (req.url === '/metrics') {
      void registry.metrics().then((body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body));
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve(server));
  });
}

/** The port a started server listens on. */
export function portOf(server: Server): number {
  return (server.address() as { port: number }).port;
}
