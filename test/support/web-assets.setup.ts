import { buildWeb } from '../../scripts/build-web.ts';

/**
 * vitest globalSetup, once per run: the web apps' assets built into services/edge/assets/, the
 * layout the edge serves in every configuration (the image's dist/ has the same, from npm run build).
 */
export default async function setup(): Promise<void> {
  await buildWeb();
}
