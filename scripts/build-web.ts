// Builds the web apps' clients once (esbuild): one script per app and the stylesheets, named by a
// hash of their content, precompressed (brotli, gzip), and a manifest the edge reads at start
// (services/edge/src/web/bundles.ts says what goes in). `npm run build` runs it into dist/;
// `npm start` and the tests' global setup run it into services/edge/assets/ (gitignored), where
// the edge finds it from its sources. esbuild is a build tool here: the image does not carry it.
//   tsx scripts/build-web.ts [out dir]
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build, type OutputFile } from 'esbuild';
import { VIEW_NAMES, VIEWS_DIR } from '../services/edge/src/mcp/ui/views.ts';
import {
  ASSETS_DIR,
  type AssetEncoding,
  type AssetManifest,
  type AssetName,
  ENCODED_SUFFIX,
  FAVICON,
  MANIFEST,
  PACKAGE_STYLES,
  SCRIPTS,
  STYLES,
} from '../services/edge/src/web/bundles.ts';
import { buildView } from './build-views.ts';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'services/edge/src');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
};
/** Worth compressing: text. Fonts are compressed already (woff, woff2) or never fetched (ttf). */
const TEXT = new Set(['.js', '.css', '.svg']);

// Paths relative to the repository, whatever the working directory: the same sources, the same hashes.
const common = {
  absWorkingDir: root,
  bundle: true,
  write: false,
  minify: true,
  legalComments: 'none',
  logLevel: 'silent',
} as const;
const from = (entries: Record<string, string>, base: string) =>
  Object.fromEntries(Object.entries(entries).map(([name, path]) => [name, join(base, path)]));

/** esbuild's outputs, each with the asset name of its entry point (fonts have none). */
async function bundle(): Promise<Array<{ file: string; contents: Uint8Array; name?: AssetName }>> {
  const require = createRequire(join(root, 'services/edge/package.json'));
  const styles = {
    ...from(STYLES, src),
    ...Object.fromEntries(Object.entries(PACKAGE_STYLES).map(([name, path]) => [name, require.resolve(path)])),
  };
  const outdir = join(root, '.web-build');
  const [scripts, css] = await Promise.all([
    build({
      ...common,
      entryPoints: from(SCRIPTS, src),
      outdir,
      entryNames: '[name]-[hash]',
      format: 'esm',
      target: 'es2022',
      metafile: true,
    }),
    build({
      ...common,
      entryPoints: styles,
      outdir,
      entryNames: '[name]-[hash]',
      // KaTeX's fonts: copied with hashed names, referenced from its stylesheet by absolute URL.
      assetNames: 'fonts/[name]-[hash]',
      publicPath: '/assets/',
      loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file' },
      metafile: true,
    }),
  ]);
  const named = (outputs: OutputFile[], meta: NonNullable<typeof scripts.metafile>, ext: 'js' | 'css') =>
    outputs.map((o) => {
      const entry = meta.outputs[relative(root, o.path)]?.entryPoint;
      const key = entry
        ? Object.entries(ext === 'js' ? from(SCRIPTS, src) : styles).find(([, p]) => sameFile(p, entry))
        : undefined;
      return {
        file: relative(outdir, o.path),
        contents: o.contents,
        name: key ? (`${key[0]}.${ext}` as AssetName) : undefined,
      };
    });
  const icon = readFileSync(join(src, FAVICON));
  return [
    ...named(scripts.outputFiles, scripts.metafile, 'js'),
    ...named(css.outputFiles, css.metafile, 'css'),
    { file: `favicon-${hash(icon)}.svg`, contents: icon, name: 'favicon.svg' },
  ];
}

function sameFile(a: string, entry: string): boolean {
  return resolve(a) === resolve(root, entry);
}

/** Eight characters of the content's SHA-256, like esbuild's own hashes. */
function hash(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('base64url').replace(/[-_]/g, '').slice(0, 8).toUpperCase();
}

/** Writes a file whole or not at all: an edge starting meanwhile never reads half of one. */
function writeAtomic(path: string, data: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

function compress(data: Uint8Array, encoding: AssetEncoding): Buffer {
  return encoding === 'br'
    ? brotliCompressSync(data, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
      })
    : gzipSync(data, { level: 9 });
}

function listFiles(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((e) => {
    const path = join(dir, e);
    return statSync(path).isDirectory() ? listFiles(path, base) : [relative(base, path)];
  });
}

/**
 * Builds every web asset into `out` and writes its manifest last. Files are named by their content,
 * so a file already there is the same and is kept as it is (and not compressed again); files of
 * earlier builds are removed once the new manifest is in place.
 */
export async function buildWeb(out: string = ASSETS_DIR): Promise<AssetManifest> {
  const outputs = await bundle();
  const manifest: AssetManifest = { entries: {} as AssetManifest['entries'], files: {} };
  for (const o of outputs) {
    const ext = extname(o.file);
    const type = TYPES[ext];
    if (!type) throw new Error(`build-web: no content type for ${o.file}`);
    if (o.name) manifest.entries[o.name] = o.file;
    const encodings: AssetEncoding[] = [];
    const target = join(out, o.file);
    if (!existsSync(target)) writeAtomic(target, o.contents);
    if (TEXT.has(ext)) {
      for (const encoding of ['br', 'gzip'] as const) {
        const path = target + ENCODED_SUFFIX[encoding];
        if (!existsSync(path)) {
          const packed = compress(o.contents, encoding);
          // Only when it saves something; a tiny file stays as it is.
          if (packed.length >= o.contents.length) continue;
          writeAtomic(path, packed);
        }
        encodings.push(encoding);
      }
    }
    manifest.files[o.file] = { type, encodings };
  }
  const missing = [
    ...Object.keys(SCRIPTS).map((n) => `${n}.js`),
    ...[...Object.keys(STYLES), ...Object.keys(PACKAGE_STYLES)].map((n) => `${n}.css`),
  ].filter((n) => !(n in manifest.entries));
  if (missing.length) throw new Error(`build-web: no output for ${missing.join(', ')}`);
  // The MCP Apps views: resources, not HTTP assets (the edge reads them, /assets does not serve them).
  const views = await Promise.all(VIEW_NAMES.map(async (name) => [name, await buildView(name)] as const));
  for (const [name, html] of views) writeAtomic(join(out, VIEWS_DIR, `${name}.html`), html);
  writeAtomic(join(out, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  const kept = new Set([
    MANIFEST,
    ...VIEW_NAMES.map((name) => join(VIEWS_DIR, `${name}.html`)),
    ...Object.entries(manifest.files).flatMap(([f, a]) => [f, ...a.encodings.map((e) => f + ENCODED_SUFFIX[e])]),
  ]);
  for (const f of listFiles(out)) if (!kept.has(f) && !f.endsWith('.tmp')) rmSync(join(out, f), { force: true });
  return manifest;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = resolve(process.argv[2] ?? ASSETS_DIR);
  const started = Date.now();
  const manifest = await buildWeb(out);
  const size = (f: string) => statSync(join(out, f)).size;
  const line = (name: string, f: string) => {
    const br = manifest.files[f]?.encodings.includes('br')
      ? `, br ${(size(f + ENCODED_SUFFIX.br) / 1024).toFixed(1)} KB`
      : '';
    return `  ${name.padEnd(12)} ${f} (${(size(f) / 1024).toFixed(1)} KB${br})`;
  };
  console.log(
    `web assets in ${relative(process.cwd(), out) || '.'} (${Date.now() - started} ms, ${Object.keys(manifest.files).length} files):\n${Object.entries(
      manifest.entries,
    )
      .map(([n, f]) => line(n, f))
      .join('\n')}`,
  );
}
