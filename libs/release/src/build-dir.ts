import { type BuildResult, buildRelease } from './build.ts';
import { gitCommitOf } from './git.ts';
import { loadCourseMap } from './load.ts';

/** A build from a folder on disk: the build result and the map's commit (null outside a clean git tree). */
export type DirBuild = BuildResult & { commit: string | null; root: string };

/** Reads, validates and builds a course map folder, and finds its commit. */
export async function buildFromDir(dir: string): Promise<DirBuild> {
  const map = await loadCourseMap(dir);
  const [result, commit] = await Promise.all([buildRelease(map), gitCommitOf(map.root)]);
  return { ...result, commit, root: map.root };
}
