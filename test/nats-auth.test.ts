// The NATS permissions table must follow the code: every subject a service requests is allowed to
// it, and the generated deployment files are those of the table.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as contracts from '@studium/contracts';
import { describe, expect, it } from 'vitest';
import { CONSUMERS, REQUESTS } from '../scripts/nats-auth.ts';
import { natsConfigFiles } from '../scripts/nats-config.ts';

const root = resolve(import.meta.dirname, '..');

/** Contract exports by identifier: tools and operations have a subject and an input schema. */
const subjects = new Map<string, string>();
for (const [name, value] of Object.entries(contracts)) {
  const v = value as { subject?: unknown; input?: unknown } | null;
  if (v && typeof v === 'object' && typeof v.subject === 'string' && v.input) subjects.set(name, v.subject);
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * The subjects a service's code requests: the contract passed to each `.request(`; where that is a
 * variable (a helper taking the contract), every contract the file imports.
 */
function requestedBy(service: string): Set<string> {
  const found = new Set<string>();
  for (const file of sources(resolve(root, 'services', service, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\.request(?:<[^>]*>)?\(\s*([A-Za-z_$][\w$]*)/g)) {
      const direct = subjects.get(m[1] as string);
      if (direct) {
        found.add(direct);
        continue;
      }
      for (const imp of text.matchAll(/import\s*\{([^}]*)\}\s*from '@studium\/contracts'/g)) {
        for (const name of (imp[1] as string).split(',').map((s) => s.replace(/^\s*type\s+/, '').trim())) {
          const s = subjects.get(name);
          if (s) found.add(s);
        }
      }
    }
  }
  return found;
}

describe('NATS permissions', () => {
  it.each(Object.keys(REQUESTS))('allow %s every subject its code requests', (service) => {
    const others = [...requestedBy(service)].filter((s) => !s.startsWith(`${service}.`)).sort();
    const allowed = REQUESTS[service as keyof typeof REQUESTS];
    expect(others.filter((s) => !allowed.includes(s))).toEqual([]);
  });

  it('are kept by every inbox: no service subscribes or replies on the default _INBOX. prefix', () => {
    // Each NATS user may listen only on its own `_INBOX_<user>` (newInbox): an inbox made with
    // nats' createInbox() would be refused on a server with the users, and its replies lost.
    const offenders = readdirSync(resolve(root, 'services'))
      .flatMap((service) => sources(resolve(root, 'services', service, 'src')))
      .filter((file) => /\bcreateInbox\(/.test(readFileSync(file, 'utf8')));
    expect(offenders.map((f) => f.slice(root.length + 1))).toEqual([]);
  });

  it('let each service read the events stream only through the durables its code consumes with', () => {
    // Every startEventConsumer of a service's code: its durable (a constant of the file) and the
    // events of its `on`; reporting's read models (one durable, filters in the body) by its name.
    const found: Record<string, Array<{ durable: string; events: string[] | 'body-filtered' }>> = {};
    const add = (service: string, durable: string, events: string[] | 'body-filtered') => {
      found[service] = [...(found[service] ?? []), { durable, events }];
    };
    for (const service of readdirSync(resolve(root, 'services'))) {
      for (const file of sources(resolve(root, 'services', service, 'src'))) {
        const text = readFileSync(file, 'utf8');
        const constant = (name: string) => new RegExp(`export const ${name} = '([^']+)'`).exec(text)?.[1] ?? name;
        for (const m of text.matchAll(
          /startEventConsumer\(\{[\s\S]*?durable: ([A-Z_]+),[\s\S]*?\bon: \{([\s\S]*?)\n {4}\},/g,
        )) {
          const keys = [...(m[2] as string).matchAll(/^\s+(?:async )?'([a-z-]+\.[a-z_]+)'/gm)].map(
            (k) => k[1] as string,
          );
          add(service, constant(m[1] as string), keys.sort());
        }
        // The access projection (libs/platform/src/access-projection.ts) reads enrollment's access documents.
        for (const m of text.matchAll(/new AccessProjection\(\{[\s\S]*?durable: ([A-Z_]+),/g)) {
          add(service, constant(m[1] as string), ['enrollment.access_changed']);
        }
        for (const m of text.matchAll(/ensureConsumer\(\s*jsm,\s*[\w.]+,\s*([A-Z_]+),/g)) {
          add(service, constant(m[1] as string), 'body-filtered');
        }
      }
    }
    const table = Object.fromEntries(
      Object.entries(CONSUMERS).map(([user, list]) => [
        user,
        (list ?? []).map((c) => ({
          durable: c.durable,
          events: c.events === 'body-filtered' ? c.events : [...c.events].sort(),
        })),
      ]),
    );
    const sorted = (o: typeof found) =>
      Object.fromEntries(
        Object.entries(o).map(([k, v]) => [k, [...v].sort((a, b) => a.durable.localeCompare(b.durable))]),
      );
    expect(sorted(table)).toEqual(sorted(found));
  });

  it('are written to deploy/ and k8s/ as generated (npm run nats:config)', () => {
    for (const [file, text] of Object.entries(natsConfigFiles())) {
      expect(readFileSync(resolve(root, file), 'utf8'), file).toBe(text);
    }
  });
});
