// The production image's layout, run as the Dockerfile runs it: `npm run build` into a folder,
// `npm ci --omit=dev` there, then every deployable with plain `node services/<name>/src/main.js`
// from that folder, NODE_ENV=production, each with its own NATS user on the test's nats-server
// with the deployment's permissions. Each surface is driven once through its public door, then
// every process must stop on SIGTERM within 10 s with code 0.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  createTestEnv,
  eventually,
  type ScriptedLlm,
  startScriptedLlm,
  TEST_KEYS,
  TEST_REPLY_KEYS,
  type TestEnv,
} from '@studium/testing';
import Fastify from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, type Running, stopAll, waitReady } from '../scripts/launch.ts';
import { compiledEntry, SERVICES } from '../scripts/services.ts';
import type * as ViewsModule from '../services/edge/src/mcp/ui/views.ts';
import type * as AssetsModule from '../services/edge/src/web/assets.ts';
import type * as ShellModule from '../services/edge/src/web/shell.ts';
import { launchChromium } from './support/browser.ts';
import { connectAgent, data } from './support/clients.ts';
import { type SmtpSink, startSmtpSink } from './support/mailer.ts';
import { driveSurfaces } from './support/surfaces.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const EXAMPLES = resolve(root, 'examples');

let env: TestEnv;
let out: string;
let llm: ScriptedLlm;
let smtp: SmtpSink;
let browser: Browser;
let running: Running[] = [];
let common: Record<string, string>;
let stopped = false;

/** `node <compiled script>` in the built folder, as an operator runs the admin CLI in the image. */
async function cli(args: string[]) {
  const { stdout } = await run(process.execPath, ['scripts/cli.js', ...args], {
    cwd: out,
    env: { ...common, ...env.natsEnv('operator'), EDGE_SIGNING_KEY: TEST_KEYS.privateKey },
  });
  return stdout;
}

beforeAll(async () => {
  env = await createTestEnv('smokeimg');
  out = await mkdtemp(join(tmpdir(), 'studium-image-'));
  // What the Dockerfile's two stages run.
  await run(resolve(root, 'node_modules/.bin/tsx'), ['scripts/build.ts'], {
    cwd: root,
    env: { ...process.env, BUILD_OUT: out },
  });
  await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: out });
  llm = await startScriptedLlm();
  smtp = await startSmtpSink();
  browser = await launchChromium();
  common = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    DATABASE_URL: env.databaseUrl,
    SUBJECT_PREFIX: env.prefix,
    REDIS_URL: env.redisUrl,
    EDGE_PUBLIC_KEY: TEST_KEYS.publicKey,
    FILE_URL_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'info',
    HEALTH_PORT: '0',
    // Nine processes on the machine's shared PostgreSQL.
    DB_POOL_MAX: '2',
  };
  const seeded = await run(process.execPath, ['scripts/seed.js'], {
    cwd: out,
    env: { ...common, ...env.natsEnv('operator') },
  });
  expect(seeded.stdout).toContain('student');
  const own: Record<string, Record<string, string>> = {
    edge: {
      PORT: '0',
      HOST: '127.0.0.1',
      EDGE_SIGNING_KEY: TEST_KEYS.privateKey,
      ENROLLMENT_PUBLIC_KEY: TEST_REPLY_KEYS.publicKey,
    },
    'ai-chat': { AI_BASE_URL: llm.url, AI_MODEL: 'scripted', AI_MAX_RETRIES: '0' },
    mailer: { SMTP_URL: smtp.url },
    enrollment: {
      MAIL_BACKOFF_MS: '100',
      MAIL_RELAY_INTERVAL_MS: '200',
      ENROLLMENT_SIGNING_KEY: TEST_REPLY_KEYS.privateKey,
    },
    knowledge: { WARM_CONNECTIONS: '1' },
  };
  running = SERVICES.map((svc) =>
    launch(svc.name, [process.execPath, compiledEntry(svc)], {
      cwd: out,
      env: { ...common, ...env.natsEnv(svc.name), ...own[svc.name] },
    }),
  );
  const notReady = await waitReady(running, 120_000);
  expect(notReady, JSON.stringify(notReady, null, 2)).toEqual([]);
}, 300_000);

afterAll(async () => {
  if (!stopped) await stopAll(running, 5000);
  await browser?.close();
  await llm?.close();
  await smtp?.close();
  await env?.cleanup();
  if (out) await rm(out, { recursive: true, force: true });
});

describe('the compiled platform, as the image runs it', () => {
  it('answers on every surface', async () => {
    const home = join(out, '.studium');
    const tokens = JSON.parse(await readFile(join(home, 'demo-tokens.json'), 'utf8'));
    const passwords = JSON.parse(await readFile(join(home, 'demo-passwords.json'), 'utf8'));
    const edge = running.find((r) => r.name === 'edge');
    const base = `http://127.0.0.1:${edge?.port()}`;
    // The demo course, as an operator publishes one with the pipeline, opened by its curator.
    const published = await cli([
      'release',
      'publish',
      join(EXAMPLES, 'negotiation-basics'),
      '--publisher',
      'curator@demo.studium',
    ]);
    const course = /course\s+(\S+) \(key/.exec(published)?.[1] ?? '';
    expect(course, published).toMatch(/^crs_/);
    const curator = await connectAgent('v2', `${base}/authoring`, tokens.curator);
    const student = await connectAgent('v2', `${base}/mcp`, tokens.student);
    try {
      data(await curator.callTool('publish_course', { course }));
      await cli(['course', 'allow', 'acme', course]);
      await eventually(async () => data(await student.callTool('enroll', { course })), 15_000);
    } finally {
      await curator.close();
      await student.close();
    }
    await driveSurfaces({
      base,
      tokens,
      passwords,
      llm,
      smtp,
      browser,
      cli,
    });
  }, 180_000);

  it('stops on SIGTERM: every process within 10 s, with code 0', async () => {
    const started = Date.now();
    const took: Record<string, number> = {};
    for (const r of running) void r.exited.then(() => (took[r.name] = Date.now() - started));
    // Past 10 s stopAll kills what still runs: such a process shows as signal SIGKILL, code null.
    const exits = await stopAll(running, 10_000);
    stopped = true;
    const unclean = exits
      .filter((e) => e.code !== 0)
      .map((e) => ({
        ...e,
        ms: took[e.name],
        last: running
          .find((r) => r.name === e.name)
          ?.output()
          .slice(-3000),
      }));
    expect(unclean).toEqual([]);
  }, 20_000);
});

// The built layout itself (beside running it above): the web assets, no client source or bundler.
const compiled = <T>(path: string): Promise<T> =>
  import(pathToFileURL(join(out, 'services/edge/src', path)).href) as Promise<T>;

describe('npm run build', () => {
  it('puts the built web assets in the tree and no client source, esbuild or client library', () => {
    const manifest = JSON.parse(readFileSync(join(out, 'services/edge/assets/manifest.json'), 'utf8'));
    expect(Object.keys(manifest.entries).sort()).toEqual(
      [
        'base.css',
        'cabinet.css',
        'cabinet.js',
        'chat.css',
        'chat.js',
        'favicon.svg',
        'katex.css',
        'student.css',
        'student.js',
        'tutor.css',
        'tutor.js',
      ].sort(),
    );
    for (const dir of ['student/web', 'cabinet/web', 'chat/web', 'tutor/web', 'web/client', 'mcp/ui/client']) {
      expect(existsSync(join(out, 'services/edge/src', dir)), dir).toBe(false);
    }
    // What `npm ci --omit=dev` installs in the image: no bundler, no client library.
    expect(existsSync(join(out, 'node_modules/esbuild'))).toBe(false);
    const production = (file: string) =>
      Object.keys(JSON.parse(readFileSync(join(out, file), 'utf8')).dependencies ?? {});
    for (const file of ['package.json', 'services/edge/package.json']) {
      for (const name of ['esbuild', 'preact', 'htm', 'marked', 'katex', 'dompurify']) {
        expect(production(file), `${file}: ${name}`).not.toContain(name);
      }
    }
    const edgeCode = readdirSync(join(out, 'services/edge/src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(out, 'services/edge/src', f), 'utf8'));
    expect(edgeCode.filter((code) => /from ['"]esbuild['"]/.test(code))).toEqual([]);
  });

  it('ships the MCP Apps views the compiled edge reads, each one document with its script inlined', async () => {
    const { VIEW_NAMES, viewHtml } = await compiled<typeof ViewsModule>('mcp/ui/views.js');
    expect([...VIEW_NAMES].sort()).toEqual(['choose', 'org-report', 'upload-homework']);
    for (const name of VIEW_NAMES) {
      // Read by the compiled edge from the built tree's assets (mcp/ui/views.js → assets/views/).
      const html = await viewHtml(name);
      const script = html.match(/<script>([\s\S]*?)<\/script>/)?.[1] ?? '';
      expect(script.length, name).toBeGreaterThan(1000);
      expect(html, name).not.toContain('<script data-view>');
      expect(html, name).not.toMatch(/<script[^>]+src=/);
    }
  });

  it('renders each app page with scripts and stylesheets the compiled edge serves from the built tree', async () => {
    const { loadWebAssets } = await compiled<typeof AssetsModule>('web/assets.js');
    const { appShell } = await compiled<typeof ShellModule>('web/shell.js');
    const { chatPage } = await compiled<typeof import('../services/edge/src/chat/page.ts')>('chat/page.js');
    const { tutorPage } = await compiled<typeof import('../services/edge/src/tutor/page.ts')>('tutor/page.js');
    // The compiled edge finds them next to its own code, as in the image.
    const assets = loadWebAssets();
    expect(assets.href('student.js')).toBe(loadWebAssets(join(out, 'services/edge/assets')).href('student.js'));
    const app = Fastify();
    assets.register(app as never);
    const user = {
      csrf: 'c',
      session: 's',
      principal: { user: 'u', full_name: 'У', roles: [], scope: 'write', space: 'personal' },
    };
    const pages = {
      student: appShell(assets, 'student', 'Учёба', user as never),
      cabinet: appShell(assets, 'cabinet', 'Кабинет автора', user as never),
      chat: chatPage(assets),
      tutor: tutorPage(assets, 'c'),
    };
    for (const [name, html] of Object.entries(pages)) {
      const script = [...html.matchAll(/<script type="module" src="(\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
      expect(script, name).toEqual([assets.href(`${name as keyof typeof pages}.js`)]);
      const links = [...html.matchAll(/<link rel="(?:stylesheet|icon)" href="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
      expect(links.length, name).toBeGreaterThanOrEqual(2);
      for (const path of [...script, ...links]) {
        const res = await app.inject({ url: path as string, headers: { 'accept-encoding': 'br' } });
        expect([res.statusCode, res.headers['cache-control']], `${name}: ${path}`).toEqual([
          200,
          'public, max-age=31536000, immutable',
        ]);
      }
      // The script is a whole module: it parses as one.
      const file = join(out, 'services/edge', (script[0] as string).replace(/^\//, ''));
      expect(() => execFileSync(process.execPath, ['--check', file], { stdio: 'pipe' }), name).not.toThrow();
    }
    expect((await app.inject({ url: '/favicon.ico' })).statusCode).toBe(200);
    await app.close();
  });
});
