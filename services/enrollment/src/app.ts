import { type OutputOf, PRINCIPAL_CHANGED, PrincipalChanged, type whoami } from '@studium/contracts';
import type { App, ServiceDeps } from '@studium/platform';
import type { EnrollmentDb } from './db.ts';
import { IdentityCache } from './domain/identity-cache.ts';
import { resolveTokenHandler } from './handlers/resolve-token.ts';
import { setSpaceHandler } from './handlers/set-space.ts';
import { whoamiHandler } from './handlers/whoami.ts';
import { IdentityRepository } from './repositories/identity.repository.ts';

/** Migrations of the enrollment schema. */
export const MIGRATIONS = new URL('../migrations', import.meta.url).pathname;

/** Registers enrollment's handlers on the bus. */
export async function createApp({ bus, database }: ServiceDeps<EnrollmentDb>): Promise<App> {
  const repo = new IdentityRepository(database.db);
  const identities = new IdentityCache<OutputOf<typeof whoami>>(IDENTITY_CACHE_TTL_MS);
  // Every replica hears every change (plain subscription, no queue group) and drops its copy.
  const changes = bus.nc.subscribe(bus.subject(PRINCIPAL_CHANGED), {
    callback: (_err, msg) => {
      const parsed = PrincipalChanged.safeParse(safeJson(msg.data));
      if (parsed.success) identities.forget(parsed.data.user);
    },
  });
  const principalChanged = (user: string) => {
    identities.forget(user);
    bus.nc.publish(bus.subject(PRINCIPAL_CHANGED), JSON.stringify({ user }));
  };
  const service = await bus.serve('enrollment', [
    resolveTokenHandler(repo),
    whoamiHandler(repo, identities),
    setSpaceHandler(repo, principalChanged),
  ]);
  return {
    async stop() {
      await service.stop();
      changes.unsubscribe();
    },
  };
}

/** How long a cached identity read may be served without a change announcement. */
const IDENTITY_CACHE_TTL_MS = 30_000;

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return null;
  }
}
