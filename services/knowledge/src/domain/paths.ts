/** Folder paths: segments joined by '/', no empty, '.' or '..' segment; '' is the root. */
export function normalisePath(raw: string | undefined): string | null {
  if (!raw) return '';
  const segs = raw
    .split('/')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (segs.some((s) => s === '.' || s === '..' || s.length > 120)) return null;
  if (segs.length > 16) return null;
  return segs.join('/');
}

/** The direct child folder of `parent` on the way to `folder`, or null when `folder` is not below it. */
export function childFolder(parent: string, folder: string): string | null {
  if (parent === '') return folder === '' ? null : folder.split('/')[0];
  if (!folder.startsWith(`${parent}/`)) return null;
  return folder.slice(parent.length + 1).split('/')[0];
}

/** A project handle: `space/slug`, or the space alone for its root project. */
export function handleOf(space: string, slug: string): string {
  return slug ? `${space}/${slug}` : space;
}

/** A valid slug: lower-case letters, digits and dashes. */
export const SLUG = /^[\p{Ll}\p{N}][\p{Ll}\p{N}-]{0,62}$/u;
