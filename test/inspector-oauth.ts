// Connects the MCP Inspector (its CLI, pinned version, under this repository's Node 24) to a local
// edge by URL alone: the Inspector runs its own OAuth flow (discovery, registration, PKCE, a
// loopback callback) and headless Chromium plays the user on the sign-in and consent pages; then
// the Inspector calls whoami. Usage: `tsx test/inspector-oauth.ts [path to the inspector bin]`
// (default: `npx -y @modelcontextprotocol/inspector@2.12.0`). What it printed is in docs/oauth.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestEnv } from '@studium/testing';
import { launchChromium, onFreePort, signInWithBrowser } from './support/oauth.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

const INSPECTOR = process.argv[2];
const USER = 'inspector@studium';
const PASSWORD = 'inspector-password-1';
const CALLBACK = 'http://127.0.0.1:6276/oauth/callback';

const env = await createTestEnv('inspector');
const enrollment = await startEnrollment(env);
const edge = await onFreePort((port) => startEdge(env, { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` }));
const base = edge.url;
let code = 1;
try {
  await enrollment.admin.upsertUser(USER, 'Инна Инспекторова', ['Student']);
  await enrollment.admin.setPassword(USER, PASSWORD);
  const args = ['--cli', '--server-url', `${base}/mcp`, '--transport', 'http', '--method', 'tools/call'];
  args.push('--tool-name', 'whoami', '--callback-url', CALLBACK);
  const [cmd, argv] = INSPECTOR
    ? [process.execPath, [INSPECTOR, ...args]]
    : ['npx', ['-y', '@modelcontextprotocol/inspector@2.12.0', ...args]];
  console.log(`$ inspector ${args.join(' ')}`);
  // No TTY here: the Inspector "opens a browser" with xdg-open, which this stand-in prints instead;
  // the URL is then opened in headless Chromium below.
  const bin = mkdtempSync(join(tmpdir(), 'inspector-bin-'));
  writeFileSync(join(bin, 'xdg-open'), '#!/bin/sh\necho "xdg-open $1" >&2\n', { mode: 0o755 });
  const child = spawn(cmd as string, argv as string[], {
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      HOME: mkdtempSync(join(tmpdir(), 'inspector-home-')),
      MCP_AUTO_OPEN_ENABLED: 'true',
      BROWSER: join(bin, 'xdg-open'),
    },
  });
  let output = '';
  let driven = false;
  const onData = async (chunk: Buffer) => {
    output += chunk.toString();
    process.stdout.write(chunk);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/auth\?\S+)/.exec(output)?.[1];
    if (url && !driven) {
      driven = true;
      console.log('\n[chromium] opening the authorization URL the Inspector printed');
      const browser = await launchChromium();
      const done = await signInWithBrowser(browser, url, CALLBACK, USER, PASSWORD);
      console.log(
        `[chromium] reached ${done.url.origin}${done.url.pathname} with code=${done.url.searchParams.has('code')}`,
      );
      await browser.close();
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  child.stdin.end();
  code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  console.log(`\ninspector exited with ${code}; whoami names the user: ${output.includes(USER)}`);
} finally {
  await edge.close();
  await enrollment.close();
  await env.cleanup();
  await env.nc.close().catch(() => {});
}
process.exit(code);
