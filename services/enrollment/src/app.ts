import { PRINCIPAL_CHANGED } from '@studium/contracts';
import type { App, ServiceDeps } from '@studium/platform';
import type { EnrollmentDb } from './db.ts';
import { resolveTokenHandler } from './handlers/resolve-token.ts';
import { setSpaceHandler } from './handlers/set-space.ts';
import { whoamiHandler } from './handlers/whoami.ts';
import { IdentityRepository } from './repositories/identity.repository.ts';

/** Migrations of the enrollment schema. */
export const MIGRATIONS = new URL('../migrations', import.meta.url).pathname;

/** Registers enrollment's handlers on the bus. */
export async function createApp({ bus, database }: ServiceDeps<EnrollmentDb>): Promise<App> {
  const repo = new IdentityRepository(database.db);
  const principalChanged = (user: string) => bus.nc.publish(bus.subject(PRINCIPAL_CHANGED), JSON.stringify({ user }));
  const service = await bus.serve('enrollment', [
    resolveTokenHandler(repo),
    whoamiHandler(repo),
    setSpaceHandler(repo, principalChanged),
  ]);
  return {
    async stop() {
      await service.stop();
    },
  };
}
