// Bundles the MCP Apps views (services/edge/src/mcp/ui): each page `ui/<name>.html` gets its script
// `ui/client/<name>.ts` (the ext-apps App class and the view's own code) inlined at its marker, so
// a view is one self-contained document. scripts/build-web.ts writes them into the assets folder.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { ViewName } from '../services/edge/src/mcp/ui/views.ts';

const HERE = new URL('../services/edge/src/mcp/ui/', import.meta.url);
/** Where a page takes its bundled script. */
const MARKER = '<script data-view></script>';

/**
 * zod (which the App class validates its messages with) re-exports every locale as a namespace
 * that esbuild cannot drop: 260 KB of error messages in 40 languages per view. The views never
 * read them (zod's English default is imported on its own), so the index is an empty module.
 */
const withoutZodLocales: Plugin = {
  name: 'without-zod-locales',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[/\\]zod[/\\]/.test(args.importer) ? { path: 'zod-locales', namespace: 'empty' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {}', loader: 'js' }));
  },
};

/** One view's HTML with its script inlined (a view is one self-contained document). */
export async function buildView(name: ViewName): Promise<string> {
  const [page, bundle] = await Promise.all([
    readFile(new URL(`${name}.html`, HERE), 'utf8'),
    build({
      entryPoints: [fileURLToPath(new URL(`client/${name}.ts`, HERE))],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      // The App's transport logs every message it parses (whole tool results) at debug level: in a
      // host's console that is noise, and with 500 report rows a measurable cost.
      pure: ['console.debug'],
      logLevel: 'silent',
      plugins: [withoutZodLocales],
    }),
  ]);
  if (!page.includes(MARKER)) throw new Error(`ui/${name}.html has no ${MARKER}`);
  // Inside an inline script, "</script" would end it early; "<\/" means the same to JavaScript.
  const script = bundle.outputFiles[0].text.replace(/<\/(script)/gi, '<\\/$1');
  return page.replace(MARKER, () => `<script>${script}</script>`);
}
