import { readFile } from 'node:fs/promises';
import { ASSETS_DIR } from '../../web/bundles.ts';

/**
 * The MCP Apps views the edge serves as `ui://studium/<name>.html` resources: the page
 * `ui/<name>.html` with its script `ui/client/<name>.ts` (the ext-apps `App` class and the view's
 * own code) bundled in at build time (scripts/build-views.ts, run by scripts/build-web.ts into
 * the assets folder's `views/`), so the running edge needs no bundler.
 */
export const VIEW_NAMES = ['choose', 'upload-homework', 'org-report'] as const;
export type ViewName = (typeof VIEW_NAMES)[number];

/** Where the built views are, beside the web assets. */
export const VIEWS_DIR = 'views';

const built = new Map<ViewName, Promise<string>>();

/** A view's HTML as served: read once per process from the build; a failed read is tried again. */
export function viewHtml(name: ViewName): Promise<string> {
  let html = built.get(name);
  if (!html) {
    html = readFile(`${ASSETS_DIR}${VIEWS_DIR}/${name}.html`, 'utf8');
    built.set(name, html);
    html.catch(() => built.delete(name));
  }
  return html;
}
