// Builds the production tree in dist/: compiled JavaScript (tsc, relative `.ts` imports rewritten
// to `.js`), every workspace's package.json with its exports pointing at the compiled files, the
// files the code reads at run time (migrations, MCP Apps pages), the web apps' built assets
// (scripts/build-web.ts → dist/services/edge/assets/), and the root manifests, so
// `npm ci --omit=dev` inside dist/ gives a tree that `node services/<name>/src/main.js` runs.
// The Dockerfile's build stage runs it; `npm run build` runs it here.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { buildWeb } from './build-web.ts';

const root = resolve(import.meta.dirname, '..');
// BUILD_OUT builds elsewhere (the tests of the image layout build into folders of their own).
const out = resolve(root, process.env.BUILD_OUT ?? 'dist');
/** The web apps' sources (bundled into assets, not copied) and a local build of those assets. */
const WEB_SOURCES = /^services\/edge\/(assets$|src\/(.+\/)?web\/)/;

/** Workspace folders of the root manifest (globs of one trailing `*` only, as this repo uses). */
function workspaces(): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  return manifest.workspaces.flatMap((w) =>
    w.endsWith('/*')
      ? readdirSync(join(root, w.slice(0, -2)))
          .map((d) => join(w.slice(0, -2), d))
          .filter((d) => existsSync(join(root, d, 'package.json')))
      : [w],
  );
}

/** `./src/x.ts` → `./src/x.js` in every string of an exports map. */
function compiledExports(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\.ts$/, '.js');
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compiledExports(v)]));
  }
  return value;
}

/** Files under a workspace that the code reads at run time: anything not TypeScript, outside tests. */
function copyAssets(ws: string, dir = ws): void {
  for (const entry of readdirSync(join(root, dir))) {
    const path = join(dir, entry);
    if (entry === 'node_modules' || entry === 'test' || entry === 'package.json') continue;
    if (WEB_SOURCES.test(path) && !path.endsWith('.ts')) continue;
    if (statSync(join(root, path)).isDirectory()) copyAssets(ws, path);
    else if (!/\.(ts|md)$/.test(entry)) {
      mkdirSync(dirname(join(out, path)), { recursive: true });
      cpSync(join(root, path), join(out, path));
    }
  }
}

// The folder is emptied first: never the repository or a folder holding it.
const fromOut = relative(out, root);
if (fromOut === '' || !fromOut.startsWith('..')) {
  throw new Error(`BUILD_OUT ${out} holds the repository: choose an empty folder`);
}
rmSync(out, { recursive: true, force: true });
execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(root, 'tsconfig.build.json'), '--outDir', out], {
  stdio: 'inherit',
});
for (const ws of workspaces()) {
  const manifest = JSON.parse(readFileSync(join(root, ws, 'package.json'), 'utf8'));
  manifest.exports = compiledExports(manifest.exports);
  delete manifest.scripts;
  mkdirSync(join(out, ws), { recursive: true });
  writeFileSync(join(out, ws, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyAssets(ws);
}
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
delete manifest.scripts;
writeFileSync(join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
cpSync(join(root, 'package-lock.json'), join(out, 'package-lock.json'));
const web = await buildWeb(join(out, 'services/edge/assets'));
console.log(
  `built ${relative(process.cwd(), out) || '.'}: ${workspaces().length} workspaces, ${Object.keys(web.files).length} web assets`,
);
