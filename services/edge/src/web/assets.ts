import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EdgeFastify } from '../fastify.ts';
import {
  ASSETS_DIR,
  type AssetEncoding,
  type AssetManifest,
  type AssetName,
  ENCODED_SUFFIX,
  MANIFEST,
} from './bundles.ts';

/** Hashed names never change content: a year, and no revalidation. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The built web assets are not where the edge looks: it refuses to start (main.ts says so). */
export class WebAssetsMissing extends Error {}

interface Stored {
  type: string;
  bodies: Partial<Record<AssetEncoding | 'identity', Buffer>>;
}

/** The web apps' built scripts, stylesheets, fonts and icon, read once at start. */
export interface WebAssets {
  /** The public path of an asset: `/assets/student-2XLY5J25.js`. */
  href(name: AssetName): string;
  /** `<link rel="icon">` for a page's head. */
  readonly iconLink: string;
  /** Registers GET /assets/<file> and /favicon.ico. */
  register(app: EdgeFastify): void;
}

/**
 * Reads the manifest and every file it names (a few hundred KB of text and KaTeX's fonts) into
 * memory. Throws WebAssetsMissing when the build has not been run for this layout.
 */
export function loadWebAssets(dir: string = ASSETS_DIR): WebAssets {
  const manifestPath = join(dir, MANIFEST);
  if (!existsSync(manifestPath)) {
    throw new WebAssetsMissing(
      `the web assets are not built: no ${manifestPath}. Build them with \`npm run build\` (the production tree in dist/) ` +
        'or `npx tsx scripts/build-web.ts` (services/edge/assets/, for running from the sources; npm start and npm test do it)',
    );
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as AssetManifest;
  const files = new Map<string, Stored>();
  for (const [file, meta] of Object.entries(manifest.files)) {
    const read = (suffix: string) => {
      try {
        return readFileSync(join(dir, file + suffix));
      } catch {
        throw new WebAssetsMissing(
          `the web assets in ${dir} are incomplete: ${file + suffix} is missing; build them again`,
        );
      }
    };
    const bodies: Stored['bodies'] = { identity: read('') };
    for (const e of meta.encodings) bodies[e] = read(ENCODED_SUFFIX[e]);
    files.set(file, { type: meta.type, bodies });
  }
  const href = (name: AssetName) => {
    const file = manifest.entries[name];
    if (!file) throw new WebAssetsMissing(`the web assets in ${dir} have no ${name}; build them again`);
    return `/assets/${file}`;
  };
  const icon = files.get(manifest.entries['favicon.svg']);
  if (!icon) throw new WebAssetsMissing(`the web assets in ${dir} have no favicon.svg; build them again`);
  const iconLink = `<link rel="icon" href="${href('favicon.svg')}" type="image/svg+xml">`;
  return {
    href,
    iconLink,
    register(app) {
      app.get<{ Params: { '*': string } }>('/assets/*', async (request, reply) => {
        const asset = files.get(request.params['*']);
        if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Нет такого файла.');
        return sendAsset(request, reply, asset, IMMUTABLE);
      });
      // Browsers ask for it unprompted, and pages outside the web apps (OAuth) link it: a fixed
      // name, so a day's cache instead of a year's.
      app.get('/favicon.ico', async (request, reply) => sendAsset(request, reply, icon, 'public, max-age=86400'));
    },
  };
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Stored, cache: string) {
  const encoding = chooseEncoding(request.headers['accept-encoding'], asset.bodies);
  reply
    .type(asset.type)
    .header('cache-control', cache)
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff');
  if (encoding !== 'identity') reply.header('content-encoding', encoding);
  return reply.send(asset.bodies[encoding]);
}

/**
 * The encoding to send, from Accept-Encoding (RFC 9110 §12.5.3): the client's higher weight of
 * brotli and gzip (brotli on a tie), otherwise the file as it is. q=0 refuses a coding; `*` stands
 * for any coding not named.
 */
export function chooseEncoding(
  header: string | string[] | undefined,
  have: Partial<Record<AssetEncoding | 'identity', unknown>>,
): AssetEncoding | 'identity' {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const weights = new Map<string, number>();
  for (const part of text.slice(0, 1024).split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (!coding) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(coding, q === undefined ? 1 : Number(q) || 0);
  }
  const weight = (coding: string) => weights.get(coding) ?? weights.get('*') ?? 0;
  let best: AssetEncoding | 'identity' = 'identity';
  for (const coding of ['br', 'gzip'] as const) {
    if (have[coding] && weight(coding) > 0 && (best === 'identity' || weight(coding) > weight(best))) best = coding;
  }
  return best;
}
