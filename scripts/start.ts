// `npm start`: local NATS/PostgreSQL/Redis → migrations → demo data → every service → how to connect.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  BaseConfig,
  createBus,
  createLogger,
  devEdgeKeys,
  ensureDatabase,
  loadConfig,
  migrate,
  natsOptions,
  openDatabase,
  PLATFORM_MIGRATIONS,
  principalSigner,
  principalVerifier,
} from '@studium/platform';
import { connect } from 'nats';
import { z } from 'zod';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS as ENROLLMENT_MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { seedDemo } from './demo.ts';
import { publishDemoCourses } from './demo-courses.ts';
import { ensureServices } from './ensure-services.ts';
import { SERVICES } from './services.ts';
import { startNats } from './start-nats.ts';

const config = loadConfig(
  BaseConfig.extend({
    HOST: z.string().default('127.0.0.1'),
    PORT: z.coerce.number().default(8080),
    STUDIUM_HOME: z.string().default('.studium'),
    /** Port of the nats-server `npm start` runs itself (see scripts/start-nats.ts). */
    NATS_PORT: z.coerce.number().int().positive().default(4223),
  }),
);
const log = createLogger('start', 'info');
const root = resolve(import.meta.dirname, '..');
const tokensFile = resolve(root, config.STUDIUM_HOME, 'demo-tokens.json');
// The edge's key pair for signed principals on the bus: the environment's, else one generated
// into STUDIUM_HOME on the first start and kept. Only the edge (and this script) gets the private key.
const keys =
  process.env.EDGE_SIGNING_KEY && process.env.EDGE_PUBLIC_KEY
    ? { privateKey: process.env.EDGE_SIGNING_KEY, publicKey: process.env.EDGE_PUBLIC_KEY }
    : devEdgeKeys(resolve(root, config.STUDIUM_HOME, 'edge-keys.json'));
const trust = { signer: principalSigner(keys.privateKey), verifier: principalVerifier(keys.publicKey) };

await ensureServices();
await ensureDatabase(config.DATABASE_URL);
const nats = await startNats({
  home: resolve(root, config.STUDIUM_HOME),
  prefix: config.SUBJECT_PREFIX,
  port: config.NATS_PORT,
});
/** This script's own connections: the operator's user, as the CLI in deployment. */
const operatorNats = () => connect(natsOptions({ ...nats.envFor('operator'), NATS_URL: nats.url }, 'start'));
{
  const database = openDatabase<EnrollmentDb>(config.DATABASE_URL, 'enrollment', 2);
  await migrate(database.pool, 'enrollment', [PLATFORM_MIGRATIONS, ENROLLMENT_MIGRATIONS]);
  const nc = await operatorNats();
  await seedDemo(database.db, tokensFile, { nc, prefix: config.SUBJECT_PREFIX });
  await nc.drain();
  await database.close();
}

const children: ChildProcess[] = [];
const tsx = resolve(root, 'node_modules/.bin/tsx');
for (const svc of SERVICES) {
  const child = spawn(tsx, [resolve(root, svc.entry)], {
    env: {
      ...process.env,
      NATS_URL: nats.url,
      ...nats.envFor(svc.name),
      EDGE_PUBLIC_KEY: keys.publicKey,
      EDGE_SIGNING_KEY: svc.name === 'edge' ? keys.privateKey : '',
      ...(svc.healthPort ? { HEALTH_PORT: String(svc.healthPort) } : {}),
      // npm start is a local development platform: the development file-URL key is allowed.
      STUDIUM_ENV: process.env.STUDIUM_ENV ?? 'development',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      MAIL_DIR: process.env.MAIL_DIR ?? resolve(root, config.STUDIUM_HOME, 'mail'),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      log.error({ service: svc.name, code, signal }, 'service exited; stopping the platform');
      void stop(1);
    }
  });
  children.push(child);
}

const base = `http://${config.HOST}:${config.PORT}`;
const deadline = Date.now() + 60_000;
for (;;) {
  const ok = await fetch(`${base}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
  if (ok) break;
  if (Date.now() > deadline) {
    log.error('the edge did not become ready within 60 s');
    await stop(1);
  }
  await new Promise((r) => setTimeout(r, 250));
}

// The demo course goes in the way a curator publishes one: pipeline, then publish_course.
{
  const nc = await operatorNats();
  const bus = createBus(nc, { prefix: config.SUBJECT_PREFIX, timeoutMs: 30_000, log, trust });
  const database = openDatabase<EnrollmentDb>(config.DATABASE_URL, 'enrollment', 2);
  try {
    const admin = new EnrollmentAdmin(database.db, { nc, prefix: config.SUBJECT_PREFIX });
    const courses = await publishDemoCourses(bus, admin, resolve(root, 'examples'));
    console.log(`Demo courses: ${[...courses.keys()].join(', ')}`);
  } catch (err) {
    log.error({ err }, 'publishing the demo courses failed');
    await stop(1);
  } finally {
    await nc.drain();
    await database.close();
  }
}

const tokens = JSON.parse(readFileSync(tokensFile, 'utf8')) as Record<string, string>;
console.log(`
Studium is running.

  Student MCP endpoint   ${base}/mcp
  Curator MCP endpoint   ${base}/authoring
  Knowledge base (MCP)   ${base}/kb
  Sign in by URL (OAuth) give a demo user a password: npm run studium -- user password student@demo.studium
  Student web pages      ${base}/  (sign in with the same login and password)
  Teacher's AI chat      ${base}/chat  (teacher token; model: ${process.env.AI_MODEL || 'none, set AI_BASE_URL, AI_MODEL, AI_API_KEY'})
  NATS                   ${nats.describe}
  Health                 ${base}/healthz   ${base}/readyz   ${base}/metrics
  Mail (no SMTP_URL)     ${resolve(root, config.STUDIUM_HOME, 'mail')}  (.eml files)
  Demo tokens            ${tokensFile}
${Object.entries(tokens)
  .map(([name, t]) => `    ${name.padEnd(9)} ${t}`)
  .join('\n')}

Connect an MCP client, e.g. Claude Code:
  claude mcp add --transport http studium ${base}/mcp --header "Authorization: Bearer ${tokens.student}"
  claude mcp add --transport http studium-authoring ${base}/authoring --header "Authorization: Bearer ${tokens.curator}"
or the MCP Inspector:
  npx @modelcontextprotocol/inspector   (Streamable HTTP, URL ${base}/mcp, header Authorization: Bearer <token>)

Press Ctrl+C to stop.
`);

let stopping = false;
async function stop(code = 0): Promise<never> {
  stopping = true;
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
  await nats.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
