/**
 * The lesson-loop bench's BENCH_TOGETHER=n (one such process each): the services named in BENCH_SERVICES (comma-separated,
 * in start order) and then the edge, all in this one process, with BUS_LOCAL on, so that requests
 * between them skip NATS (events still go through the outbox and JetStream). A measurement of what
 * the hops between processes cost, not a deployment: each service still opens its own NATS
 * connection and database pool, and their shutdown hooks are not ordered (docs/benchmarks.md).
 */
process.env.BUS_LOCAL = 'true';
for (const name of (process.env.BENCH_SERVICES ?? '').split(',').filter(Boolean)) {
  if (!/^[a-z-]+$/.test(name)) throw new Error(`not a service name: ${name}`);
  // Each entry point resolves once its service serves.
  await import(`../services/${name}/src/main.ts`);
}
await import('../services/edge/src/main.ts');
