// Runs the MCP Inspector's CLI (pinned version, under this repository's Node 24) against a local
// edge with a bearer token: tools/list on /mcp, /authoring and /kb (with --strict, the Inspector's
// check of tool-schema portability), and tools/call of the lists whose output schemas share parts
// through $defs, with data that fills those parts (an ordered program). Issue 31.
// Usage: `tsx test/inspector-tools.ts [path to the inspector bin]`
// (default: `npx -y @modelcontextprotocol/inspector@2.12.0`). What it printed is in docs/benchmarks.md.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestEnv } from '@studium/testing';
import { benchCourse, seedCatalog } from '../bench/catalog.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

const INSPECTOR = process.argv[2];
const USER = 'inspector@studium';

function inspector(args: string[]): Promise<{ code: number; out: string }> {
  const [cmd, argv] = INSPECTOR
    ? [process.execPath, [INSPECTOR, ...args]]
    : ['npx', ['-y', '@modelcontextprotocol/inspector@2.12.0', ...args]];
  const child = spawn(cmd as string, argv as string[], {
    env: { ...process.env, HOME: mkdtempSync(join(tmpdir(), 'inspector-home-')) },
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stdin.end();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, out })));
}

const env = await createTestEnv('inspector-tools');
const enrollment = await startEnrollment(env);
const edge = await startEdge(env);
let failed = 0;
try {
  const a = enrollment.admin;
  await a.upsertUser(USER, 'Инна Инспекторова', ['Student', 'Course Creator']);
  await a.upsertOrganization('acme', 'Акме');
  await a.addMember('acme', USER, 'member');
  await seedCatalog({
    nc: await env.as('courses'),
    prefix: env.prefix,
    db: enrollment.db,
    admin: a,
    org: 'acme',
    courses: 4,
  });
  await a.saveProgram('chain', 'Цепочка', true, [1, 2, 3].map(benchCourse));
  await a.addProgramMember('chain', USER);
  await a.assignCourse('acme', USER, benchCourse(2), { mandatory: true });
  const { token } = await a.issueToken(USER);
  const common = ['--cli', '--transport', 'http', '--header', `Authorization: Bearer ${token}`];
  // [what, arguments, the exit code expected, a check of the output]
  const runs: Array<[string, string[], number, (out: string) => boolean]> = [];
  for (const path of ['/mcp', '/authoring', '/kb']) {
    runs.push([
      `tools/list ${path} --strict`,
      ['--server-url', `${edge.url}${path}`, '--method', 'tools/list', '--strict'],
      0,
      (out) => out.includes('"tools"'),
    ]);
  }
  for (const tool of ['list_my_courses', 'list_catalog']) {
    runs.push([
      `tools/call ${tool}`,
      ['--server-url', `${edge.url}/mcp`, '--method', 'tools/call', '--tool-name', tool, '--tool-arg', 'space=acme'],
      0,
      (out) => out.includes('"structuredContent"') && out.includes('"previous"'),
    ]);
  }
  runs.push([
    'tools/call enroll (a refusal)',
    ['--server-url', `${edge.url}/mcp`, '--method', 'tools/call', '--tool-name', 'enroll'].concat([
      '--tool-arg',
      `course=${benchCourse(2)}`,
      'space=acme',
    ]),
    // The Inspector exits 5 on a tool result with isError (a refusal), after printing it.
    5,
    (out) => out.includes('"code": "already_enrolled"'),
  ]);
  for (const [name, args, exit, ok] of runs) {
    const { code, out } = await inspector([...common, ...args]);
    const tools = (out.match(/"name": "/g) ?? []).length;
    const pass = code === exit && ok(out);
    if (!pass) failed++;
    console.log(`$ inspector ${name}: exit ${code}, ${pass ? 'as expected' : 'NOT as expected'}`);
    if (name.startsWith('tools/list')) {
      console.log(`  tools listed: ${tools}`);
      // --strict's portability report (stderr lines, not the JSON on stdout).
      for (const line of out.split('\n').filter((l) => /^(Warning|Error|\s+(path|issue|fix))/i.test(l))) {
        console.log(`  ${line}`);
      }
    }
    if (!pass) console.log(out.slice(0, 3000));
  }
} finally {
  await edge.close();
  await enrollment.close();
  await env.cleanup();
  await env.nc.close().catch(() => {});
}
console.log(failed ? `${failed} run(s) not as expected` : 'every run as expected');
process.exit(failed ? 1 : 0);
