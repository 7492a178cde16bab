// The NATS permissions table must follow the code: every subject a service requests is allowed to
// it, and the generated deployment files are those of the table.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as contracts from '@studium/contracts';
import { describe, expect, it } from 'vitest';
import { REQUESTS } from '../scripts/nats-auth.ts';
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

  it('are written to deploy/ and k8s/ as generated (npm run nats:config)', () => {
    for (const [file, text] of Object.entries(natsConfigFiles())) {
      expect(readFileSync(resolve(root, file), 'utf8'), file).toBe(text);
    }
  });
});
