import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

// Every manifest in k8s/ validated offline against the Kubernetes OpenAPI schemas (the
// kubernetes-models package), plus what an operator relies on: hardened pods, pinned images, a
// disruption budget and an autoscaler per service, TLS, metrics kept off the ingress.
const root = resolve(import.meta.dirname, '..');
// biome-ignore lint/suspicious/noExplicitAny: manifests and the compose file are walked as free-form data.
type Loose = any;
const k8s = resolve(root, 'k8s');
type Doc = {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
  [k: string]: unknown;
};
const docs: Array<{ file: string; doc: Doc }> = readdirSync(k8s)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((file) =>
    parseAllDocuments(readFileSync(resolve(k8s, file), 'utf8')).map((d) => {
      if (d.errors.length) throw new Error(`${file}: ${d.errors[0]?.message}`);
      return { file, doc: d.toJS() as Doc };
    }),
  );

/** The kubernetes-models class of a document (e.g. apps/v1 Deployment → kubernetes-models/apps/v1/Deployment). */
async function model(doc: Doc): Promise<new (data: unknown) => { validate(): void }> {
  const mod = await import(`kubernetes-models/${doc.apiVersion}/${doc.kind}`);
  return mod[doc.kind];
}

const of = (kind: string) => docs.filter((d) => d.doc.kind === kind).map((d) => d.doc);
const podSpec = (d: Doc): Loose => (d.spec as Loose).template.spec;

describe('k8s manifests', () => {
  it('validate against the Kubernetes OpenAPI schemas', async () => {
    expect(docs.length).toBeGreaterThan(30);
    for (const { file, doc } of docs) {
      const Model = await model(doc);
      expect(() => new Model(doc).validate(), `${file}: ${doc.kind}/${doc.metadata?.name}`).not.toThrow();
    }
  });

  it('catch a manifest that does not (the validation is real)', async () => {
    const deployment = structuredClone(of('Deployment')[0] as Doc);
    (deployment.spec as Record<string, unknown>).replicas = 'two';
    const Model = await model(deployment);
    expect(() => new Model(deployment).validate()).toThrow(/replicas/);
  });

  it('run every container hardened, with a pinned image', () => {
    for (const d of of('Deployment')) {
      const pod = podSpec(d);
      expect(pod.securityContext, d.metadata.name).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      for (const c of pod.containers) {
        expect(c.securityContext, c.name).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.image, c.name).toMatch(/^[^:]+:(?!latest$)[\w.-]+$/);
        // A read-only root: /tmp is an emptyDir.
        const tmp = c.volumeMounts?.find((m: { mountPath: string }) => m.mountPath === '/tmp');
        expect(pod.volumes.find((v: { name: string }) => v.name === tmp?.name)?.emptyDir, c.name).toBeDefined();
      }
    }
  });

  it('give every service a disruption budget and every stateless one an autoscaler', () => {
    const deployments = of('Deployment').map((d) => d.metadata.name);
    const pdbs = of('PodDisruptionBudget').map((d) => d.metadata.name);
    const hpas = of('HorizontalPodAutoscaler').map(
      (d) => (d.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name,
    );
    expect(deployments.sort()).toEqual(
      [
        'ai-chat',
        'courses',
        'edge',
        'enrollment',
        'homework',
        'knowledge',
        'lessons',
        'mailer',
        'pgbouncer',
        'reporting',
      ].sort(),
    );
    expect(pdbs.sort()).toEqual(deployments.sort());
    // PgBouncer's replica count is part of the connection budget: fixed, not autoscaled.
    expect(hpas.sort()).toEqual(deployments.filter((n) => n !== 'pgbouncer').sort());
    for (const h of of('HorizontalPodAutoscaler'))
      expect((h.spec as { minReplicas: number }).minReplicas).toBeGreaterThanOrEqual(2);
  });

  it('serve TLS on the ingress and keep the metrics port off it', () => {
    const [ingress] = of('Ingress') as Doc[];
    const spec = ingress?.spec as Loose;
    expect(spec.tls[0].secretName).toBeTruthy();
    expect(spec.tls[0].hosts).toEqual(spec.rules.map((r: { host: string }) => r.host));
    const paths = spec.rules.flatMap((r: { http: { paths: { path: string }[] } }) => r.http.paths.map((p) => p.path));
    expect(paths).not.toContain('/metrics');
    const edgeService = of('Service').find((s) => s.metadata.name === 'edge') as Doc;
    expect((edgeService.spec as { ports: { targetPort: string }[] }).ports.map((p) => p.targetPort)).toEqual(['http']);
    const edge = podSpec(of('Deployment').find((d) => d.metadata.name === 'edge') as Doc).containers[0];
    expect(edge.env).toContainEqual({ name: 'METRICS_PORT', value: '9100' });
  });

  it('let only the ingress reach the edge and only Studium reach NATS, PostgreSQL, Redis and PgBouncer', () => {
    const policies = of('NetworkPolicy');
    const byTarget = (name: string) =>
      policies.find((p) => (p.spec as Loose).podSelector.matchLabels?.['app.kubernetes.io/name'] === name) as Loose;
    expect(byTarget('edge').spec.ingress[0].from[0].namespaceSelector).toBeDefined();
    for (const target of ['nats', 'postgresql', 'redis', 'pgbouncer']) {
      expect(byTarget(target)?.spec.ingress[0].from, target).toEqual([
        { podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'studium' } } },
      ]);
    }
    // Everything else of Studium is closed by default.
    expect(policies.some((p) => !(p.spec as { ingress?: unknown }).ingress)).toBe(true);
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(resolve(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as Loose;

  it('gives every long-running container a healthcheck and waits on conditions', () => {
    for (const [name, svc] of Object.entries<Loose>(compose.services)) {
      if (svc.profiles?.includes('tools')) continue;
      expect(svc.healthcheck?.test, name).toBeDefined();
      for (const [dep, cond] of Object.entries<Loose>(svc.depends_on ?? {})) {
        expect(cond.condition, `${name} → ${dep}`).toBe('service_healthy');
      }
    }
  });

  it('keeps the mail queue in Redis across restarts and puts the pooler in front of PostgreSQL', () => {
    expect(compose.services.redis.command.join(' ')).toMatch(/--appendonly yes/);
    expect(compose.services.redis.volumes).toEqual(['redis:/data']);
    expect(compose.services.pgbouncer).toBeDefined();
    for (const [name, svc] of Object.entries<Loose>(compose.services)) {
      const url: string | undefined = svc.environment?.DATABASE_URL;
      if (url && name !== 'seed') expect(url, name).toMatch(/@pgbouncer:6432\//);
    }
  });

  it('parses with docker-compose when it is installed', () => {
    // Debian's docker-compose (1.29) checks the file without an engine; CI installs it.
    const binary = ['/usr/bin/docker-compose', '/usr/local/bin/docker-compose'].find((b) => existsSync(b));
    // The secrets the file requires (`${NAME:?…}`) come from `npm run secrets -- env`: any value parses.
    const text = readFileSync(resolve(root, 'docker-compose.yml'), 'utf8');
    const required = [...text.matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]);
    expect(required).toEqual(expect.arrayContaining(['EDGE_PUBLIC_KEY', 'EDGE_SIGNING_KEY', 'FILE_URL_SECRET']));
    const checked = binary
      ? execFileSync(binary, ['-f', resolve(root, 'docker-compose.yml'), 'config', '-q'], {
          cwd: root,
          encoding: 'utf8',
          env: { ...process.env, ...Object.fromEntries(required.map((k) => [k, 'set-by-the-test'])) },
        })
      : null;
    expect(checked === null || checked === '').toBe(true);
  });
});
