import type pg from 'pg';
import { failSpan, recording, SpanKind, tracer } from './tracing.ts';

/** The statement's first word (`select`, `insert`, `with` …): a span name of low cardinality. */
function verb(text: string): string {
  return /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toLowerCase() ?? 'query';
}

/**
 * Records a span per query of a pool client, inside a recorded call only (no cost otherwise). A
 * wrapper of `client.query`, not an auto-instrumentation hook: those patch modules on load, which
 * ESM makes fragile. Covers Kysely (promise form) and `pool.query` (callback form) alike.
 */
export function traceQueries(client: pg.PoolClient): void {
  const original = client.query as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = function traced(
    this: unknown,
    ...args: unknown[]
  ) {
    if (!recording()) return original.apply(this, args);
    const first = args[0] as string | { text?: string } | undefined;
    const text = typeof first === 'string' ? first : (first?.text ?? '');
    const span = tracer.startSpan(`pg ${verb(text)}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system': 'postgresql', 'db.statement': text.slice(0, 1000) },
    });
    const end = (err?: unknown) => {
      if (err) failSpan(span, err);
      span.end();
    };
    const last = args.at(-1);
    if (typeof last === 'function') {
      const done = last as (err: unknown, res: unknown) => void;
      return original.apply(this, [
        ...args.slice(0, -1),
        (err: unknown, res: unknown) => {
          end(err);
          done(err, res);
        },
      ]);
    }
    const result = original.apply(this, args) as Promise<unknown> | undefined;
    if (result && typeof result.then === 'function') result.then(() => end(), end);
    else end();
    return result;
  };
}
