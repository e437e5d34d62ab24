/** `baton status` with no config.json here or above: no conversation (exit 2), and the nearest one meant. */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { loadConfig } from '../../config/load.js';
import { readRegistry } from '../machine/registry.js';

/** Folders below the current one looked into for a config.json: a project one level down (`cd review`). */
const LOOK_INTO = 64;

/** The hint: a conversation below this folder (served, or a config.json one level down), else init and ls. */
export function noConversationHint(cwd: string, stateDir: string): string {
  const rel = (dir: string) => relative(cwd, dir) || '.';
  const served = readRegistry(stateDir).registry.conversations;
  const below = served.filter((e) => e.home === cwd || e.home.startsWith(cwd.endsWith(sep) ? cwd : cwd + sep));
  const found = below.length ? below.map((e) => e.home) : configsOneDown(cwd);
  if (found.length) {
    const shown = found.slice(0, 3).map((dir) => `cd ${rel(dir)} && baton status`);
    const more = found.length > 3 ? ` (${found.length - 3} more: baton ls)` : '';
    return `a conversation ${below.length ? "this machine's daemon serves " : ''}is below this folder: ${shown.join(', or ')}${more}`;
  }
  const ls = served.length
    ? `; "baton ls" lists the ${served.length} conversation${served.length === 1 ? '' : 's'} this machine's daemon serves`
    : '';
  return `"baton init" makes one here, or give --config FILE${ls}`;
}

/** Folders right below `cwd` whose config.json loads as baton's (another tool's config.json is no hint). */
function configsOneDown(cwd: string): string[] {
  let names: string[];
  try {
    names = readdirSync(cwd, { withFileTypes: true })
      .filter((d) => d.isDirectory() && !d.name.startsWith('.') && d.name !== 'node_modules')
      .map((d) => d.name)
      .sort()
      .slice(0, LOOK_INTO);
  } catch {
    return [];
  }
  return names
    .map((n) => join(cwd, n))
    .filter((dir) => {
      const file = join(dir, 'config.json');
      if (!existsSync(file)) return false;
      try {
        loadConfig({ file, baseDir: dir }, { busUrl: 'optional' });
        return true;
      } catch {
        return false;
      }
    });
}
