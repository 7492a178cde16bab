import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

/**
 * The top of services/edge/src: the HTTP plumbing the surfaces share (the app and its start, the
 * bearer token's check, body bounds, the rate limiter, the audit log, metrics, config, the app's
 * type, the sign-in forms and their throttle). A surface's own files live in its room: mcp/,
 * oauth/, web/, student/, cabinet/, tutor/, chat/.
 */
const SHARED = [
  'app.ts',
  'audit.ts',
  'auth.ts',
  'body.ts',
  'config.ts',
  'fastify.ts',
  'forms.ts',
  'main.ts',
  'metrics.ts',
  'rate-limit.ts',
  'signin-throttle.ts',
];

/** Every .ts file under src, relative to it, with forward slashes. */
function sources(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split('\\').join('/'))
    .sort();
}

/**
 * Who imports whom among the sources: relative imports of .ts files, type-only ones and re-exports
 * included (a cycle of types is still a cycle of modules to read), found by TypeScript's own scan.
 */
function importGraph(): Map<string, string[]> {
  const files = sources();
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(SRC, file), 'utf8');
    const targets = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((i) => i.fileName)
      .filter((name) => name.startsWith('.') && name.endsWith('.ts'))
      .map((name) =>
        relative(SRC, resolve(SRC, dirname(file), name))
          .split('\\')
          .join('/'),
      )
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** The strongly connected components with a cycle (Tarjan), each as a list of files. */
function cyclicComponents(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (;;) {
      const w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || graph.get(v)?.includes(v)) out.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** One shortest cycle through the first file of a component, as `a.ts → b.ts → a.ts`. */
function cycleThrough(graph: Map<string, string[]>, component: string[]): string {
  const members = new Set(component);
  const start = component[0] as string;
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift() as string;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path: string[] = [];
        for (let at = v; at !== start; at = from.get(at) as string) path.unshift(at);
        return [start, ...path, start].join(' → ');
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.join(', ');
}

describe('services/edge/src layout', () => {
  it('has no import cycle', () => {
    const graph = importGraph();
    // The scan found the imports at all (a broken filter would pass with an empty graph).
    expect(graph.get('app.ts')).toContain('config.ts');
    const cycles = cyclicComponents(graph).map(
      (c) => `${cycleThrough(graph, c)}${c.length > 2 ? ` (component: ${c.join(', ')})` : ''}`,
    );
    expect(cycles).toEqual([]);
  });

  it('finds and names a cycle (the check itself)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    const cycles = cyclicComponents(graph);
    expect(cycles).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(cycleThrough(graph, cycles[0] as string[])).toBe('a.ts → b.ts → c.ts → a.ts');
  });

  it('keeps only the shared plumbing at the top; each surface in its room', () => {
    const top = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
    expect(top.filter((name) => !SHARED.includes(name))).toEqual([]);
  });
});
