import { execFile } from 'node:child_process';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildFromDir, gitCommitOf } from '@studium/release';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASICS, edit, removeTemps, tempDir } from './support.ts';

const run = promisify(execFile);

/** Runs git in the temp repository of this test (never in the project's own). */
async function git(repo: string, ...args: string[]): Promise<string> {
  const identity = ['-c', 'user.email=author@demo.studium', '-c', 'user.name=Author', '-c', 'commit.gpgsign=false'];
  return (await run('git', ['-C', repo, ...identity, ...args])).stdout.trim();
}

let repo: string;
let map: string;
let head: string;

beforeAll(async () => {
  repo = await tempDir('git');
  map = join(repo, 'courses', 'negotiation-basics');
  await mkdir(join(repo, 'courses'), { recursive: true });
  await cp(BASICS, map, { recursive: true });
  await mkdir(join(repo, 'other'));
  await writeFile(join(repo, 'other', 'notes.md'), 'соседняя папка');
  await writeFile(join(repo, '.gitignore'), '*.release.json\n');
  await git(repo, 'init', '-q');
  await git(repo, 'add', '.');
  await git(repo, 'commit', '-q', '-m', 'course map');
  head = await git(repo, 'rev-parse', 'HEAD');
});
afterAll(removeTemps);

describe('gitCommitOf', () => {
  it('is HEAD for a committed, clean map folder, and the build records it', async () => {
    expect(head).toMatch(/^[0-9a-f]{40}$/);
    expect(await gitCommitOf(map)).toBe(head);
    const built = await buildFromDir(map);
    expect(built.ok && built.commit).toBe(head);
  });

  it('ignores ignored files and changes outside the map folder', async () => {
    await writeFile(join(map, 'negotiation-basics.release.json'), '{}');
    await writeFile(join(repo, 'other', 'notes.md'), 'изменено');
    expect(await gitCommitOf(map)).toBe(head);
  });

  it('is null while the folder has a change or an untracked file', async () => {
    await edit(map, 'frame.md', 'Тон', 'Тон разговора');
    expect(await gitCommitOf(map)).toBeNull();
    await git(repo, 'checkout', '-q', '--', '.');
    expect(await gitCommitOf(map)).toBe(head);
    await writeFile(join(map, 'chapters', 'draft.md'), 'черновик');
    expect(await gitCommitOf(map)).toBeNull();
  });

  it('is null outside a git work tree and in a repository without commits', async () => {
    const plain = await tempDir('plain');
    expect(await gitCommitOf(plain)).toBeNull();
    await git(plain, 'init', '-q');
    expect(await gitCommitOf(plain)).toBeNull();
  });
});
