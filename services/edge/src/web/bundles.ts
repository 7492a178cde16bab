// What the web apps' clients are built from (scripts/build-web.ts bundles them once, at build
// time) and the manifest the build writes for the edge. Data only: the edge imports this file at
// run time, where esbuild is not installed.

/** Each web app's client entry, relative to services/edge/src: one script per app. */
export const SCRIPTS = {
  student: 'student/web/main.ts',
  cabinet: 'cabinet/web/main.ts',
  chat: 'chat/web/main.ts',
  tutor: 'tutor/web/main.ts',
} as const;

/** The stylesheets, relative to services/edge/src (`base` is shared by every app). */
export const STYLES = {
  base: 'web/client/base.css',
  student: 'student/web/student.css',
  cabinet: 'cabinet/web/cabinet.css',
  chat: 'chat/web/chat.css',
  tutor: 'tutor/web/tutor.css',
} as const;

/** Stylesheets of packages, as module paths: KaTeX's (its fonts come along, with hashed names too). */
export const PACKAGE_STYLES = { katex: 'katex/dist/katex.min.css' } as const;

/** The platform's icon, relative to services/edge/src. */
export const FAVICON = 'web/favicon.svg';

/** A built asset by what it is: `student.js`, `base.css`, `katex.css`, `favicon.svg`. */
export type AssetName =
  | `${keyof typeof SCRIPTS}.js`
  | `${keyof typeof STYLES | keyof typeof PACKAGE_STYLES}.css`
  | 'favicon.svg';

/** Content encodings the build precompresses text assets in, in order of preference. */
export type AssetEncoding = 'br' | 'gzip';

/** One built file under the assets folder (served at /assets/<file>). */
export interface AssetFile {
  type: string;
  /** The encodings it was precompressed in (`<file>.br`, `<file>.gz`), only when smaller. */
  encodings: AssetEncoding[];
}

/** assets/manifest.json: the hashed file of every asset name, and every file the edge serves. */
export interface AssetManifest {
  entries: Record<AssetName, string>;
  files: Record<string, AssetFile>;
}

/** Where the built assets live, relative to this file in both layouts (src/ from TypeScript, dist/). */
export const ASSETS_DIR = new URL('../../assets/', import.meta.url).pathname;

export const MANIFEST = 'manifest.json';

/** The file a precompressed copy is stored in. */
export const ENCODED_SUFFIX: Record<AssetEncoding, string> = { br: '.br', gzip: '.gz' };
