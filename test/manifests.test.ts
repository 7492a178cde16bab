import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { CONFIG_SCHEMAS } from './support/configs.ts';
import { SERVER_LOGIN_RETRY_S } from './support/pgbouncer.ts';

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
      policies.find(
        (p) =>
          (p.spec as Loose).ingress && (p.spec as Loose).podSelector.matchLabels?.['app.kubernetes.io/name'] === name,
      ) as Loose;
    expect(byTarget('edge').spec.ingress[0].from[0].namespaceSelector).toBeDefined();
    for (const target of ['nats', 'postgresql', 'redis', 'pgbouncer']) {
      expect(byTarget(target)?.spec.ingress[0].from, target).toEqual([
        { podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'studium' } } },
      ]);
    }
    // Everything else of Studium is closed by default, both ways.
    const deny = policies.find((p) => p.metadata.name === 'studium-default-deny')?.spec as Loose;
    expect(deny).toMatchObject({ podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'studium' } } });
    expect(deny.policyTypes.sort()).toEqual(['Egress', 'Ingress']);
    expect(deny.ingress ?? []).toEqual([]);
    expect(deny.egress ?? []).toEqual([]);
  });

  it('let each deployable out to DNS and exactly what it uses', () => {
    const common = ['kube-dns:53/TCP', 'kube-dns:53/UDP'];
    const service = ['nats:4222/TCP', 'ns:monitoring:4318/TCP', 'pgbouncer:6432/TCP'];
    const relay = [...service, 'postgresql:5432/TCP'];
    const expected: Record<string, string[]> = {
      edge: [...service, 'redis:6379/TCP'],
      enrollment: [...relay, 'redis:6379/TCP'],
      courses: relay,
      lessons: relay,
      homework: relay,
      knowledge: relay,
      reporting: service,
      'ai-chat': [...service, 'redis:6379/TCP', 'ip:0.0.0.0/0-private:443/TCP'],
      mailer: [
        'nats:4222/TCP',
        'ns:monitoring:4318/TCP',
        'redis:6379/TCP',
        'ip:0.0.0.0/0:465/TCP',
        'ip:0.0.0.0/0:587/TCP',
      ],
      pgbouncer: ['postgresql:5432/TCP'],
    };
    for (const d of of('Deployment')) {
      const name = d.metadata.name;
      const out = egressOf(d);
      expect(out, name).toEqual([...common, ...(expected[name] ?? ['missing from the table'])].sort());
      // What it is configured to reach and what it may reach agree.
      const env = new Map<string, Loose>(podSpec(d).containers[0].env?.map((e: Loose) => [e.name, e]) ?? []);
      const reaches = (rule: string) => out.some((r) => r.startsWith(rule));
      expect(reaches('postgresql:'), `${name}: PostgreSQL directly`).toBe(
        env.has('DATABASE_DIRECT_URL') || name === 'pgbouncer',
      );
      expect(reaches('pgbouncer:'), `${name}: PgBouncer`).toBe(env.has('DATABASE_URL'));
      expect(reaches('ip:0.0.0.0/0:587'), `${name}: SMTP`).toBe(env.has('SMTP_URL'));
      expect(reaches('ip:0.0.0.0/0-private:443'), `${name}: the model`).toBe(env.has('AI_BASE_URL'));
    }
  });

  it('give each Deployment only the secrets it reads, key by key', () => {
    const own = (nats: string) => [`studium-nats/NATS_PASSWORD_${nats}`];
    const db = 'studium-secrets/DB_PASSWORD';
    const expected: Record<string, string[]> = {
      edge: [...own('EDGE'), 'studium-edge-key/EDGE_SIGNING_KEY', db, 'studium-secrets/FILE_URL_SECRET'],
      enrollment: [...own('ENROLLMENT'), 'studium-enrollment-key/ENROLLMENT_SIGNING_KEY', db],
      courses: [...own('COURSES'), db],
      lessons: [...own('LESSONS'), db],
      homework: [...own('HOMEWORK'), db, 'studium-secrets/FILE_URL_SECRET'],
      knowledge: [...own('KNOWLEDGE'), db],
      reporting: [...own('REPORTING'), db],
      'ai-chat': [...own('AI_CHAT'), db, 'studium-secrets/AI_API_KEY'],
      mailer: [...own('MAILER'), 'studium-secrets/MAIL_FROM', 'studium-secrets/SMTP_URL'],
      pgbouncer: [],
    };
    const schemas: Record<string, { shape: Record<string, unknown> }> = CONFIG_SCHEMAS;
    for (const d of of('Deployment')) {
      const name = d.metadata.name;
      const pod = podSpec(d);
      const refs: string[] = [];
      for (const c of pod.containers) {
        // No Secret wholesale: envFrom would hand every key to every process.
        expect(c.envFrom?.filter((e: Loose) => e.secretRef) ?? [], `${name}: envFrom secretRef`).toEqual([]);
        for (const e of c.env ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (!ref) continue;
          refs.push(`${ref.name}/${ref.key}`);
          if (ref.name !== 'studium-secrets') continue;
          // A key of the shared Secret is read by this deployable's config, or only builds its URLs.
          const interpolated = (c.env as Loose[]).some((o) => String(o.value ?? '').includes(`$(${e.name})`));
          expect(
            e.name in (schemas[name]?.shape ?? {}) || (e.name === 'DB_PASSWORD' && interpolated),
            `${name}: ${e.name}`,
          ).toBe(true);
        }
      }
      expect(refs.sort(), name).toEqual((expected[name] ?? ['missing from the table']).sort());
    }
  });

  it('keep in the shared ConfigMap only what more than one deployable reads', () => {
    const config = of('ConfigMap').find((c) => c.metadata.name === 'studium-config') as Loose;
    for (const key of ['AI_BASE_URL', 'AI_MODEL', 'AI_API_KEY', 'SMTP_URL', 'MAIL_FROM', 'FILE_URL_SECRET']) {
      expect(Object.keys(config.data), key).not.toContain(key);
    }
    const aiChat = podSpec(of('Deployment').find((d) => d.metadata.name === 'ai-chat') as Doc).containers[0];
    expect(aiChat.env.map((e: { name: string }) => e.name)).toEqual(
      expect.arrayContaining(['AI_BASE_URL', 'AI_MODEL']),
    );
  });
});

/** A NetworkPolicy peer in short: the pods' name label, the namespace, or the address block. */
function peer(p: Loose): string {
  if (p.ipBlock) return `ip:${p.ipBlock.cidr}${p.ipBlock.except?.length ? '-private' : ''}`;
  const pods = p.podSelector?.matchLabels ?? {};
  const pod = pods['app.kubernetes.io/name'] ?? pods['k8s-app'];
  if (pod) return pod;
  return `ns:${p.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']}`;
}

/** Whether a policy's podSelector selects a pod with these labels (matchLabels, In expressions). */
function selects(selector: Loose, labels: Record<string, string>): boolean {
  const exact = Object.entries<string>(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const expressions = (selector.matchExpressions ?? []).every(
    (e: Loose) => e.operator === 'In' && e.values.includes(labels[e.key]),
  );
  return exact && expressions;
}

/** Everything a Deployment's pods may reach, `<peer>:<port>/<protocol>`, from every policy selecting them. */
function egressOf(d: Doc): string[] {
  const labels = (d.spec as Loose).template.metadata.labels;
  const rules = of('NetworkPolicy')
    .map((p) => p.spec as Loose)
    .filter((p) => p.policyTypes.includes('Egress') && selects(p.podSelector, labels))
    .flatMap((p) => p.egress ?? []);
  return [
    ...new Set(
      rules.flatMap((r: Loose) =>
        r.to.flatMap((t: Loose) => r.ports.map((port: Loose) => `${peer(t)}:${port.port}/${port.protocol}`)),
      ),
    ),
  ].sort() as string[];
}

describe('PgBouncer', () => {
  it('retries a failed server login after 1 s in k8s, compose and the tests (the default 15 s kept failing calls)', () => {
    const setting = (ini: string) => /^\s*server_login_retry\s*=\s*(\S+)\s*$/m.exec(ini)?.[1];
    const config = of('ConfigMap').find((c) => c.metadata.name === 'pgbouncer-config') as Loose;
    const compose = readFileSync(resolve(root, 'compose/pgbouncer/pgbouncer.ini'), 'utf8');
    expect(setting(config.data['pgbouncer.ini'])).toBe('1');
    expect(setting(compose)).toBe('1');
    expect(SERVER_LOGIN_RETRY_S).toBe(1);
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
    expect(required).toEqual(
      expect.arrayContaining([
        'EDGE_PUBLIC_KEY',
        'EDGE_SIGNING_KEY',
        'ENROLLMENT_PUBLIC_KEY',
        'ENROLLMENT_SIGNING_KEY',
        'FILE_URL_SECRET',
      ]),
    );
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
