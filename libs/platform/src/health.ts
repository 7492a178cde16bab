import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';

/** A readiness check: resolves when the dependency answers. */
export type Check = () => Promise<unknown>;

/** Prometheus registry of one process, with Node's default metrics. */
export function createMetrics(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
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

/** The small HTTP server non-HTTP services open for Kubernetes probes and Prometheus. */
export function startHealthServer(port: number, checks: Record<string, Check>, registry: Registry): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (req.url === '/readyz') {
      void runChecks(checks).then((failed) => {
        res
          .writeHead(failed.length ? 503 : 200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: failed.length ? 'unavailable' : 'ok', failed }));
      });
    } else if (req.url === '/metrics') {
      void registry.metrics().then((body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body));
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(port, '0.0.0.0', () => resolve(server)));
}
