import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ok, type Reply } from '@studium/contracts';
import { notModified, type Tagged, tagged } from '@studium/platform';
import type { ListStampsRepository, ListStampsRow } from '../repositories/list-stamps.repository.ts';
import type { SpaceScope } from './space.ts';

/** Contents of every source file under `dir`, in path order. */
function sources(dir: string, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sources(path, into);
    else if (/\.[cm]?[jt]s$/.test(entry.name)) into.push(path, readFileSync(path, 'utf8'));
  }
  return into;
}

/**
 * A digest of the code that turns rows into a list reply: this service's and the contracts'
 * sources. After a deploy that changes either, no caller's kept reply is confirmed (each is sent
 * once more), so a reply of an old shape never outlives the code that made it; replicas of one
 * build agree.
 */
const CODE_VERSION = createHash('sha256')
  .update(
    JSON.stringify([
      ...sources(join(dirname(fileURLToPath(import.meta.url)), '..')),
      ...sources(dirname(fileURLToPath(import.meta.resolve('@studium/contracts')))),
    ]),
  )
  .digest('base64url')
  .slice(0, 12);

/**
 * The part of a course list's ETag that the data decides: `<shared>.<own>.<who>`, the change
 * stamps of the rows the list reads (migration 0004) and a digest of the code version, which
 * list, whose, and the space scope (the organizations whose catalogs and enrollments count),
 * which the identity decides and no stamp covers.
 */
function listEtagBase(list: string, user: string, scope: SpaceScope, stamps: ListStampsRow): string {
  const who = createHash('sha256')
    .update(
      JSON.stringify([
        CODE_VERSION,
        list,
        user,
        scope.space,
        scope.organization,
        scope.catalogOrgs && [...scope.catalogOrgs].sort(),
        [...scope.courseSpaces].sort(),
      ]),
    )
    .digest('base64url')
    .slice(0, 22);
  return `${stamps.shared}.${stamps.own}.${who}`;
}

/**
 * The full ETag: the base and the database time (epoch ms) at which the reply turns stale with no
 * write at all (a deadline passing makes a course overdue), or `-` when it never does.
 */
function listEtag(base: string, until: number | null): string {
  return `${base}|${until ?? '-'}`;
}

/** True when the caller's ETag was given for the same base and its reply has not gone stale by time. */
function isCurrent(etag: string | null, base: string, now: number): etag is string {
  if (!etag?.startsWith(`${base}|`)) return false;
  const until = etag.slice(base.length + 1);
  if (until === '-') return true;
  const at = Number(until);
  return until !== '' && Number.isFinite(at) && now < at;
}

/**
 * A course list answered conditionally. The stamps are read first: a caller whose ETag is still
 * current gets "not modified". Otherwise the list is rendered and the stamps read again; the reply
 * is tagged only when they did not move, so its ETag names exactly the data it was made from (a
 * write that lands in between leaves the reply untagged, and the next call renders again).
 */
export async function conditionalList<T>(opts: {
  stamps: ListStampsRepository;
  list: string;
  user: string;
  scope: SpaceScope;
  ifNoneMatch: string | null;
  /** The list's data, and the database time when it turns stale by itself (null: never). */
  render: () => Promise<{ data: T; until: number | null }>;
}): Promise<Reply<T> | Tagged<T>> {
  const before = await opts.stamps.read(opts.user);
  const base = listEtagBase(opts.list, opts.user, opts.scope, before);
  if (isCurrent(opts.ifNoneMatch, base, before.now)) return notModified(opts.ifNoneMatch);
  const { data, until } = await opts.render();
  const after = await opts.stamps.read(opts.user);
  const reply = ok(data);
  if (after.shared !== before.shared || after.own !== before.own) return reply;
  return tagged(listEtag(base, until), reply);
}
