import { createHash } from 'node:crypto';
import type { ListStampsRow } from '../repositories/list-stamps.repository.ts';
import type { SpaceScope } from './space.ts';

/**
 * Bumped whenever the lists render the same rows differently: after such a deploy a caller's
 * kept reply must not be confirmed as current.
 */
const RENDER_VERSION = 1;

/**
 * The part of a course list's ETag that the data decides: `<shared>.<own>.<who>`, the change
 * stamps of the rows the list reads (migration 0004) and a digest of which list, whose, and the
 * space scope (the organizations whose catalogs and enrollments count), which the identity
 * decides and no stamp covers.
 */
export function listEtagBase(list: string, user: string, scope: SpaceScope, stamps: ListStampsRow): string {
  const who = createHash('sha256')
    .update(JSON.stringify([RENDER_VERSION, list, user, scope]))
    .digest('base64url')
    .slice(0, 22);
  return `${stamps.shared}.${stamps.own}.${who}`;
}

/**
 * The full ETag: the base and the database time (epoch ms) at which the reply turns stale with no
 * write at all (a deadline passing makes a course overdue), or `-` when it never does.
 */
export function listEtag(base: string, until: number | null): string {
  return `${base}|${until ?? '-'}`;
}

/** True when the caller's ETag was given for the same base and its reply has not gone stale by time. */
export function isCurrent(etag: string | null, base: string, now: number): etag is string {
  if (!etag?.startsWith(`${base}|`)) return false;
  const until = etag.slice(base.length + 1);
  if (until === '-') return true;
  const at = Number(until);
  return until !== '' && Number.isFinite(at) && now < at;
}
