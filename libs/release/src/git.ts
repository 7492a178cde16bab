import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function git(dir: string, args: string[]): Promise<string | null> {
  try {
    const { stdout } = await run('git', ['-C', dir, ...args], { encoding: 'utf8', timeout: 10_000 });
    return stdout;
  } catch {
    return null;
  }
}

/**
 * The commit of a course map folder: HEAD of its git work tree when nothing under the folder is
 * changed or untracked (ignored files do not count); otherwise, or outside git, null.
 */
export async function gitCommitOf(dir: string): Promise<string | null> {
  if ((await git(dir, ['rev-parse', '--is-inside-work-tree']))?.trim() !== 'true') return null;
  const head = (await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD']))?.trim();
  if (!head) return null;
  const status = await git(dir, ['status', '--porcelain', '--untracked-files=all', '--', '.']);
  return status === '' ? head : null;
}
