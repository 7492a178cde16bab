import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type EdgeRoute, edgeRoutes } from '../services/edge/src/app.ts';
import { UPLOAD_BODY_LIMIT } from '../services/edge/src/mcp/routes.ts';
import { startEdge } from './support/stack.ts';

// The Ingress of k8s/edge.yaml against the route table of a real edge (buildApp, OAuth on as in
// k8s): in a cluster only what the Ingress routes reaches the edge, so a page, an API or an asset
// path it misses is dead there while every test passes (issue 29: `/`, `/login`, `/lessons/…`
// and `/assets/…` were). Deliberately not routed: the probes' and Prometheus's paths, which reach
// the pods directly.
const NOT_ROUTED = ['/healthz', '/readyz', '/metrics'];

interface IngressPath {
  path: string;
  pathType: 'Exact' | 'Prefix';
}

/** Ingress matching (networking.k8s.io/v1): Exact is equality; Prefix matches whole path elements. */
function routes(paths: IngressPath[], path: string): boolean {
  return paths.some(({ path: p, pathType }) => {
    if (pathType === 'Exact') return path === p;
    const prefix = p.replace(/\/+$/, '');
    return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
  });
}

/** A request path a fastify pattern serves: each parameter and wildcard filled in. */
const sample = (url: string) => url.replace(/:[A-Za-z_]+/g, 'x').replace(/\*$/, 'x');

/** The edge's routes (by pattern) that no Ingress path reaches. */
function unrouted(table: EdgeRoute[], paths: IngressPath[]): string[] {
  const urls = [...new Set(table.map((r) => r.url))].filter((u) => !NOT_ROUTED.includes(u));
  return urls.filter((u) => !routes(paths, sample(u)));
}

type IngressDoc = {
  kind: string;
  metadata: { annotations?: Record<string, string> };
  spec: { rules: Array<{ http: { paths: IngressPath[] } }> };
};
const ingressDoc = (() => {
  const docs = parseAllDocuments(readFileSync(resolve(import.meta.dirname, '../k8s/edge.yaml'), 'utf8')).map(
    (d) => d.toJS() as IngressDoc,
  );
  const doc = docs.find((d) => d.kind === 'Ingress');
  if (!doc) throw new Error('k8s/edge.yaml has no Ingress');
  return doc;
})();
const ingress = ingressDoc.spec.rules.flatMap((r) => r.http.paths);

/** nginx's size syntax (client_max_body_size): bytes, or k/m/g of 1024. */
function nginxBytes(size: string): number {
  const m = /^(\d+)([kmg]?)$/i.exec(size.trim());
  if (!m) throw new Error(`not an nginx size: ${size}`);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] as string).toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * unit;
}

let env: TestEnv;
let table: EdgeRoute[];

beforeAll(async () => {
  env = await createTestEnv('ingress-routes');
  const edge = await startEdge(env);
  table = edgeRoutes(edge.app);
  await edge.close();
});

afterAll(async () => {
  await env?.cleanup();
});

describe('the Ingress', () => {
  it('routes every path the edge serves', () => {
    expect(table.length).toBeGreaterThan(40);
    // The pages, APIs and assets that were missing once, by name, beside the whole table.
    for (const url of [
      '/',
      '/login',
      '/lessons/:lesson',
      '/cabinet',
      '/tutor',
      '/assets/*',
      '/api/student/tools/:tool',
    ]) {
      expect(
        table.map((r) => r.url),
        url,
      ).toContain(url);
    }
    expect(unrouted(table, ingress)).toEqual([]);
  });

  it('routes no probe or metrics path, and no path the edge does not serve', () => {
    for (const path of NOT_ROUTED) {
      expect(
        table.map((r) => r.url),
        path,
      ).toContain(path);
      expect(routes(ingress, path), path).toBe(false);
    }
    const samples = table.map((r) => sample(r.url));
    for (const p of ingress) {
      expect(
        samples.some((s) => routes([p], s)),
        `${p.pathType} ${p.path}`,
      ).toBe(true);
    }
  });

  it('lets through the largest body the edge reads (a batch a little too large gets answer_too_large, not nginx’s 413)', () => {
    const size = ingressDoc.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size'];
    expect(size, 'proxy-body-size').toBeDefined();
    expect(nginxBytes(size as string)).toBeGreaterThanOrEqual(UPLOAD_BODY_LIMIT);
    // The check is real: the 48m the Ingress had cut 48–54.3 MiB uploads at nginx.
    expect(nginxBytes('48m')).toBeLessThan(UPLOAD_BODY_LIMIT);
  });

  it('would fail on a route the Ingress misses', () => {
    const without = ingress.filter((p) => p.path !== '/lessons' && p.path !== '/favicon.ico');
    expect(unrouted(table, without).sort()).toEqual(['/favicon.ico', '/lessons/:lesson']);
    // Element-wise prefixes: /chat does not route /chatx, Exact / routes nothing below it.
    expect(routes([{ path: '/chat', pathType: 'Prefix' }], '/chatx')).toBe(false);
    expect(routes([{ path: '/chat', pathType: 'Prefix' }], '/chat/')).toBe(true);
    expect(routes([{ path: '/', pathType: 'Exact' }], '/catalog')).toBe(false);
  });
});
