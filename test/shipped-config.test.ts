// Every variable a shipped configuration sets for a deployable — `npm start` (scripts/services.ts),
// docker-compose.yml and k8s/<name>.yaml — survives that deployable's loadConfig. zod drops what a
// schema does not name, so a setting a manifest passes and a config forgets would vanish without
// a word (the mailer lost its NATS user that way, and never joined a bus with users).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BaseConfig, loadConfig } from '@studium/platform';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { SERVICES, serviceEnv } from '../scripts/services.ts';
import { CONFIG_SCHEMAS, type DeployableName } from './support/configs.ts';

const root = resolve(import.meta.dirname, '..');
type Name = DeployableName;

const SCHEMAS = CONFIG_SCHEMAS;

/**
 * Variables a process reads outside its config schema, and where: the trust keys (trustFromEnv,
 * libs/platform/src/trust.ts), the tracing exporter (libs/platform/src/tracing.ts), Node's own.
 * DB_PASSWORD is no setting: k8s interpolates it into DATABASE_URL (`$(DB_PASSWORD)`).
 */
const OUTSIDE_CONFIG: Record<string, string> = {
  EDGE_PUBLIC_KEY: 'libs/platform/src/trust.ts',
  EDGE_SIGNING_KEY: 'libs/platform/src/trust.ts',
  ENROLLMENT_PUBLIC_KEY: 'libs/platform/src/trust.ts',
  ENROLLMENT_SIGNING_KEY: 'libs/platform/src/trust.ts',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'libs/platform/src/tracing.ts',
  OTEL_SERVICE_NAME: 'libs/platform/src/tracing.ts',
  NODE_ENV: '',
};

/** A stand-in for a value the manifest takes from elsewhere (a Secret, the caller's environment). */
const PLACEHOLDER = 'from-a-secret';

/** The variables of one source for one deployable, name → value (placeholders where not literal). */
type Vars = Record<string, string>;

function npmStart(name: Name): Vars {
  const svc = SERVICES.find((s) => s.name === name);
  if (!svc) throw new Error(name);
  return serviceEnv(svc, {
    nats: (user) => ({ NATS_URL: 'nats://127.0.0.1:4223', NATS_USER: user, NATS_PASSWORD: 'p0' }),
    keys: { publicKey: 'pub', privateKey: 'priv' },
    replyKeys: { publicKey: 'rpub', privateKey: 'rpriv' },
    healthPortBase: 9101,
    mailDir: '/tmp/mail',
    logLevel: 'info',
    studiumEnv: 'development',
  });
}

/** docker-compose.yml's environment of a service, anchors merged, `${X…}` as placeholders. */
function compose(name: Name): Vars {
  const file = parse(readFileSync(resolve(root, 'docker-compose.yml'), 'utf8'), { merge: true });
  const env = (file.services[name]?.environment ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, String(v).includes('${') ? PLACEHOLDER : String(v)]),
  );
}

// biome-ignore lint/suspicious/noExplicitAny: manifests are walked as free-form data.
type Loose = any;
const k8sDocs: Loose[] = ['config.yaml', ...SERVICES.map((s) => `${s.name}.yaml`)].flatMap((f) =>
  parseAllDocuments(readFileSync(resolve(root, 'k8s', f), 'utf8')).map((d) => d.toJS()),
);

/** k8s/<name>.yaml's container environment: env, plus every ConfigMap and Secret it takes whole. */
function k8s(name: Name): Vars {
  const deployment = k8sDocs.find((d) => d?.kind === 'Deployment' && d.metadata.name === name);
  const container = deployment.spec.template.spec.containers[0];
  const vars: Vars = {};
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const kind = from.configMapRef ? 'ConfigMap' : 'Secret';
    const doc = k8sDocs.find((d) => d?.kind === kind && d.metadata.name === ref.name);
    if (!doc) throw new Error(`${name}: envFrom ${kind} ${ref.name} is not in k8s/`);
    for (const [k, v] of Object.entries({ ...doc.data, ...doc.stringData })) {
      vars[k] = kind === 'Secret' ? PLACEHOLDER : String(v);
    }
  }
  for (const e of container.env ?? [])
    vars[e.name] = e.valueFrom || String(e.value).includes('$(') ? PLACEHOLDER : e.value;
  return vars;
}

const SOURCES = { 'npm start': npmStart, 'docker-compose.yml': compose, k8s: k8s } as const;

/** The variables a source sets that the deployable's loadConfig drops. */
function dropped(name: Name, vars: Vars): string[] {
  const schema = SCHEMAS[name];
  const known = new Set(Object.keys(schema.shape));
  const config = loadConfig(schema, { ...vars, FILE_URL_SECRET: 'x'.repeat(40) }) as Record<string, unknown>;
  return Object.keys(vars).filter((k) => {
    if (k in OUTSIDE_CONFIG) return false;
    if (k === 'DB_PASSWORD') return false;
    return !known.has(k) || config[k] === undefined;
  });
}

describe('shipped configurations', () => {
  for (const [source, read] of Object.entries(SOURCES)) {
    it.each(SERVICES.map((s) => s.name))(`${source}: every variable set for %s survives its loadConfig`, (name) => {
      const vars = read(name);
      expect(Object.keys(vars).length, `${source} sets nothing for ${name}`).toBeGreaterThan(0);
      expect(dropped(name, vars)).toEqual([]);
    });
  }

  it('every deployable runs on the NATS user each source gives it', () => {
    for (const s of SERVICES) {
      for (const read of Object.values(SOURCES)) {
        const vars = read(s.name);
        expect(vars.NATS_USER, s.name).toBe(s.name);
        const config = loadConfig(SCHEMAS[s.name], { ...vars, FILE_URL_SECRET: 'x'.repeat(40) });
        expect(config.NATS_USER, s.name).toBe(s.name);
        expect(config.NATS_PASSWORD, s.name).toBeTruthy();
      }
    }
  });

  it('catches a config that drops a variable (the check is real)', () => {
    const picked = BaseConfig.pick({ NATS_URL: true });
    const schemas = SCHEMAS as Record<string, z.ZodObject>;
    const original = schemas.mailer;
    schemas.mailer = picked;
    try {
      expect(dropped('mailer', { NATS_URL: 'nats://x', NATS_USER: 'mailer', NATS_PASSWORD: 'p' })).toEqual([
        'NATS_USER',
        'NATS_PASSWORD',
      ]);
    } finally {
      schemas.mailer = original as z.ZodObject;
    }
  });

  it('reads the variables it lets pass outside a schema where it says', () => {
    for (const [name, file] of Object.entries(OUTSIDE_CONFIG)) {
      if (file) expect(readFileSync(resolve(root, file), 'utf8'), name).toContain(name);
    }
    // DB_PASSWORD only ever feeds another variable of the same container.
    for (const s of SERVICES) {
      const deployment = k8sDocs.find((d) => d?.kind === 'Deployment' && d.metadata.name === s.name);
      const env = deployment.spec.template.spec.containers[0].env ?? [];
      if (env.some((e: Loose) => e.name === 'DB_PASSWORD')) {
        expect(
          env.some((e: Loose) => String(e.value ?? '').includes('$(DB_PASSWORD)')),
          s.name,
        ).toBe(true);
      }
    }
  });
});
