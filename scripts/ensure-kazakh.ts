// Installs the Kazakh dictionary for PostgreSQL full-text search (the knowledge service's
// `knowledge.kazakh` configuration): Debian's hunspell-kk, converted to the ispell files
// PostgreSQL reads (`kk_kz.dict`/`kk_kz.affix` in tsearch_data: UTF-8 without BOM, LF line ends).
// Best effort: without it Kazakh notes are indexed with `simple` and search still works.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

const HUNSPELL = '/usr/share/hunspell/kk_KZ';
const PG_SHARE = '/usr/share/postgresql';

function clean(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r/g, '');
}

/** Copies the dictionary into every local PostgreSQL's tsearch_data that lacks it; true when present. */
export function ensureKazakhDictionary(log: (s: string) => void = console.log): boolean {
  if (!existsSync(PG_SHARE)) return false;
  if (!existsSync(`${HUNSPELL}.dic`) && process.getuid?.() === 0) {
    try {
      log('installing hunspell-kk for Kazakh full-text search');
      // A fresh machine may have no package lists yet: update them when the first try fails.
      execSync('apt-get install -y hunspell-kk || (apt-get update && apt-get install -y hunspell-kk)', {
        stdio: 'ignore',
        shell: '/bin/bash',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    } catch {
      log('could not install hunspell-kk: Kazakh notes are searched with the simple configuration');
    }
  }
  if (!existsSync(`${HUNSPELL}.dic`)) return false;
  let ok = true;
  for (const version of readdirSync(PG_SHARE)) {
    const dir = `${PG_SHARE}/${version}/tsearch_data`;
    if (!existsSync(dir) || existsSync(`${dir}/kk_kz.dict`)) continue;
    try {
      writeFileSync(`${dir}/kk_kz.dict`, clean(readFileSync(`${HUNSPELL}.dic`, 'utf8')));
      writeFileSync(`${dir}/kk_kz.affix`, clean(readFileSync(`${HUNSPELL}.aff`, 'utf8')));
      log(`installed the Kazakh dictionary into ${dir}`);
    } catch (err) {
      ok = false;
      log(`could not write ${dir} (${(err as Error).message}): Kazakh notes use the simple configuration`);
    }
  }
  return ok;
}

if (import.meta.url === `file://${process.argv[1]}`) ensureKazakhDictionary();
