// `npm start`: local NATS/PostgreSQL/Redis → migrations → demo data → every deployable, each
// ready (its /readyz 200) → the demo courses → how to connect. A deployable that is not ready in
// START_TIMEOUT_MS is named with its last log line, and the start fails.
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
  replyVerifier,
} from '@studium/platform';
import { connect } from 'nats';
import { z } from 'zod';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS as ENROLLMENT_MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { buildWeb } from './build-web.ts';
import { seedDemo, seedDemoPasswords } from './demo.ts';
import { publishDemoCourses } from './demo-courses.ts';
import { ensureServices } from './ensure-services.ts';
import { LEVELS, launch, type Running, stopAll, waitReady } from './launch.ts';
import { SERVICES, serviceEnv } from './services.ts';
import { startNats } from './start-nats.ts';

const config = loadConfig(
  BaseConfig.extend({
    HOST: z.string().default('127.0.0.1'),
    PORT: z.coerce.number().default(8080),
    STUDIUM_HOME: z.string().default('.studium'),
    /** Port of the nats-server `npm start` runs itself (see scripts/start-nats.ts); 0 takes a free one. */
    NATS_PORT: z.coerce.number().int().min(0).default(4223),
    /** The services' health ports are this and the next seven (scripts/services.ts); 0: free ports. */
    HEALTH_PORT_BASE: z.coerce.number().int().min(0).max(65_000).default(9101),
    /** How long every deployable has to become ready before the start fails. */
    START_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  }),
);
const log = createLogger('start', 'info');
const root = resolve(import.meta.dirname, '..');
const tokensFile = resolve(root, config.STUDIUM_HOME, 'demo-tokens.json');
const passwordsFile = resolve(root, config.STUDIUM_HOME, 'demo-passwords.json');
// The edge's key pair for signed principals on the bus: the environment's, else one generated
// into STUDIUM_HOME on the first start and kept. Only the edge (and this script) gets the private key.
const keys =
  process.env.EDGE_SIGNING_KEY && process.env.EDGE_PUBLIC_KEY
    ? { privateKey: process.env.EDGE_SIGNING_KEY, publicKey: process.env.EDGE_PUBLIC_KEY }
    : devEdgeKeys(resolve(root, config.STUDIUM_HOME, 'edge-keys.json'));
// Enrollment's reply key pair (its token and user lookups are signed for the edge), kept the same way.
const replyKeys =
  process.env.ENROLLMENT_SIGNING_KEY && process.env.ENROLLMENT_PUBLIC_KEY
    ? { privateKey: process.env.ENROLLMENT_SIGNING_KEY, publicKey: process.env.ENROLLMENT_PUBLIC_KEY }
    : devEdgeKeys(resolve(root, config.STUDIUM_HOME, 'enrollment-keys.json'));
const trust = {
  signer: principalSigner(keys.privateKey),
  verifier: principalVerifier(keys.publicKey),
  replyVerifier: replyVerifier(replyKeys.publicKey),
};

await ensureServices();
// The edge serves the web apps' built scripts and stylesheets (services/edge/assets/), as the image does.
await buildWeb();
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
  await seedDemoPasswords(database.db, passwordsFile);
  await nc.drain();
  await database.close();
}

// The services log at info at least (their ports and last lines are read from it); the console
// shows what reaches LOG_LEVEL (default warn).
const shown = process.env.LOG_LEVEL ?? 'warn';
const childLevel = (LEVELS[shown] ?? 40) < LEVELS.info ? shown : 'info';
const children: Running[] = [];
let stopping = false;
// From here on a signal stops the children too (never leave them running without this script).
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
// npm dies on SIGTERM without passing it on: when whoever started this script is gone (this
// process has a new parent), stop the platform too, rather than leave every service running.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stop(0);
}, 500).unref();
const { PATH, HOME, ...given } = process.env;
for (const svc of SERVICES) {
  const env = {
    ...given,
    PATH,
    HOME,
    ...serviceEnv(svc, {
      nats: (user) => ({ NATS_URL: nats.url, ...nats.envFor(user) }),
      keys,
      replyKeys,
      healthPortBase: config.HEALTH_PORT_BASE,
      mailDir: process.env.MAIL_DIR ?? resolve(root, config.STUDIUM_HOME, 'mail'),
      logLevel: childLevel,
      studiumEnv: process.env.STUDIUM_ENV ?? 'development',
    }),
  };
  // node itself, not the tsx wrapper: SIGTERM reaches the service.
  const child = launch(svc.name, [process.execPath, '--import', 'tsx', resolve(root, svc.entry)], {
    cwd: root,
    env,
    echo: (line, level) => {
      if (level === null || level >= (LEVELS[shown] ?? 40)) process.stderr.write(`[${svc.name}] ${line}\n`);
    },
  });
  void child.exited.then(({ code, signal }) => {
    if (!stopping) {
      log.error({ service: svc.name, code, signal, last: child.lastLine() }, 'service exited; stopping the platform');
      void stop(1);
    }
  });
  children.push(child);
}

const notReady = await waitReady(children, config.START_TIMEOUT_MS);
if (notReady.length) {
  console.error(`\nStudium did not start: ${notReady.length} of ${children.length} not ready.`);
  for (const n of notReady) console.error(`  ${n.name}: ${n.why}\n    last log line: ${n.lastLine || '(none)'}`);
  await stop(1);
}
const edge = children.find((c) => c.name === 'edge');
const base = `http://${config.HOST}:${edge?.port() ?? config.PORT}`;

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
const passwords = JSON.parse(readFileSync(passwordsFile, 'utf8')) as Record<string, string>;
console.log(`
Studium is running: ${children.map((c) => c.name).join(', ')} ready.

  Student MCP endpoint   ${base}/mcp
  Curator MCP endpoint   ${base}/authoring
  Knowledge base (MCP)   ${base}/kb
  Student web pages      ${base}/   the tutor: ${base}/tutor   author's cabinet: ${base}/cabinet
  Web and OAuth sign-in  ${Object.entries(passwords)
    .map(([login, pw]) => `${login} / ${pw}`)
    .join('   ')}  (${passwordsFile})
  Teacher's AI chat      ${base}/chat  (teacher token; model: ${process.env.AI_MODEL || 'none, set AI_BASE_URL, AI_MODEL, AI_API_KEY'})
  NATS                   ${nats.describe}
  Health                 ${base}/healthz   ${base}/readyz   ${base}/metrics
  Release e-mail         ${process.env.SMTP_URL ? 'SMTP_URL' : `${process.env.MAIL_DIR ?? resolve(root, config.STUDIUM_HOME, 'mail')}  (.eml files; set SMTP_URL to send)`}
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

/**
 * Stops every deployable (SIGTERM, SIGKILL after 10 s) and NATS. Exits with `code`, or 1 when a
 * deployable did not stop cleanly (a non-zero code, or killed).
 */
async function stop(code = 0): Promise<never> {
  if (stopping) return new Promise<never>(() => {});
  stopping = true;
  const exits = await stopAll(children);
  await nats.stop();
  const unclean = exits.filter((e) => e.code !== 0);
  for (const e of unclean) log.error({ service: e.name, code: e.code, signal: e.signal }, 'did not stop cleanly');
  const status = code || (unclean.length ? 1 : 0);
  console.log(status === 0 ? 'Studium stopped.' : `Studium stopped with errors (exit ${status}).`);
  process.exit(status);
}
