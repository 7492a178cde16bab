import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted recursively (by UTF-16 code units, as Array.prototype.sort does),
 * no whitespace, undefined fields left out. The same value always gives the same bytes.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`canonical JSON has no ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
  }
  throw new Error(`canonical JSON has no ${typeof value}`);
}

/** SHA-256, hex, of the UTF-8 bytes of a canonical JSON text: the release's digest. */
export function digestOf(json: string): string {
  return createHash('sha256').update(json, 'utf8').digest('hex');
}

/** The digest of a release (or any value): SHA-256 of its canonical JSON. */
export function releaseDigest(release: unknown): string {
  return digestOf(canonicalJson(release));
}
