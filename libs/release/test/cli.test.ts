import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../../scripts/release.ts';
import { BASICS, copyMap, edit, removeTemps, tempDir } from './support.ts';

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv('release-cli');
});
afterAll(async () => {
  await removeTemps();
  await env.cleanup();
});

/** Runs the CLI in-process with captured output, against this file's NATS subject prefix. */
async function cli(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: { ...env.natsEnv('operator'), SUBJECT_PREFIX: env.prefix, REQUEST_TIMEOUT_MS: '1000' },
  };
  return { code: await main(argv, io), out, err };
}

describe('release build', () => {
  it('writes the canonical JSON whose SHA-256 is the printed digest, with progress on stderr', async () => {
    const file = join(await tempDir('out'), 'basics.json');
    const run = await cli('build', BASICS, '--out', file);
    expect(run.code).toBe(0);
    const digest = run.out.find((l) => l.startsWith('digest'))?.split(/\s+/)[1];
    const bytes = await readFile(file);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(digest);
    expect(run.out).toContain(
      'contents  2 chapters, 5 lessons, 10 objectives (24 items), 3 quizzes (9 questions), 4 homework, a document of 4 sections',
    );
    expect(run.out.find((l) => l.startsWith('commit'))).toMatch(/^commit\s+(none|[0-9a-f]{40})/);
    expect(run.err[0]).toMatch(/^reading map .*negotiation-basics…$/);
    expect(run.err[1]).toMatch(/^validating \d+ files…$/);
  });

  it('exits 1 with every located error of an invalid map, and writes nothing', async () => {
    const dir = await copyMap();
    await edit(dir, 'chapters/preparation/interests/quiz.yaml', 'pass_threshold: 0.67', 'pass_threshold: 67');
    await edit(dir, 'document.yaml', 'lesson: closing', 'lesson: finale');
    const file = join(await tempDir('out'), 'bad.json');
    const run = await cli('build', dir, '--out', file);
    expect(run.code).toBe(1);
    expect(run.err).toContain('chapters/preparation/interests/quiz.yaml:3:17: pass_threshold: must be between 0 and 1');
    expect(run.err.some((l) => l.startsWith("document.yaml:82:13: sections[3].lesson: unknown lesson 'finale'"))).toBe(
      true,
    );
    expect(run.err.at(-1)).toMatch(/^2 errors: .* is not a valid course map$/);
    await expect(readFile(file)).rejects.toThrow();
  });

  it('exits 2 on a usage error', async () => {
    expect((await cli('deploy', BASICS)).code).toBe(2);
    expect((await cli('build')).code).toBe(2);
    expect((await cli('build', BASICS, '--force')).code).toBe(2);
  });
});

describe('release publish', () => {
  it('reads a built JSON and reports clearly when the courses service does not answer', async () => {
    const file = join(await tempDir('out'), 'basics.json');
    expect((await cli('build', BASICS, '--out', file)).code).toBe(0);
    const run = await cli('publish', file, '--publisher', 'curator@demo.studium', '--commit', 'a'.repeat(40));
    expect(run.code).toBe(1);
    expect(run.out).toContain(`commit    ${'a'.repeat(40)}`);
    expect(run.err.at(-2)).toMatch(/^publishing to .* as curator@demo\.studium…$/);
    expect(run.err.at(-1)).toMatch(/^publish failed: the courses service is not running/);
  });

  it('refuses a JSON file that is not a release', async () => {
    const file = join(await tempDir('out'), 'broken.json');
    await writeFile(file, JSON.stringify({ format: 1, course: { key: 'x' } }));
    const run = await cli('publish', file);
    expect(run.code).toBe(1);
    expect(run.err.some((l) => l.includes('course.title'))).toBe(true);
  });
});
