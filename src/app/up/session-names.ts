/**
 * Session names unique on the machine: `<folder>-<hash>-<agent>`, the path's hash telling folders of one name
 * apart (a/review, b/review); a suggestion is checked free on the tmux server and in every registry conversation.
 * A project's names stay what its config says; only a clash is refused.
 */
import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import type { Agent, Config } from '../../config/config.js';
import { loadConfig } from '../../config/load.js';
import { readRegistry } from '../machine/registry.js';

/** Four hex digits of the project folder's path: two folders of one name on a machine differ in them. */
export const projectHash = (baseDir: string): string =>
  createHash('sha1').update(resolve(baseDir)).digest('hex').slice(0, 4);

/** `<folder>-<hash>-<agent>` within tmux's rules (config/schema.ts); when in `taken`, the first free `…-2`, `…-3`. */
export function sessionSuggestion(
  config: Pick<Config, 'baseDir'>,
  agent: Pick<Agent, 'name'>,
  taken: ReadonlySet<string> = new Set(),
): string {
  const dashed = basename(resolve(config.baseDir)).replace(/[^A-Za-z0-9_-]+/g, '-');
  const folder = dashed.replace(/^-+|-+$/g, '').slice(0, 40) || 'baton';
  const name = `${folder}-${projectHash(config.baseDir)}-${agent.name}`;
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) if (!taken.has(`${name}-${n}`)) return `${name}-${n}`;
}

/** Names a suggestion must not be: the server's sessions, this config's, the registry's other configs' (down now). */
export function takenSessions(config: Config, running: Iterable<string>, registryDir: string): Set<string> {
  const taken = new Set([...running, ...config.order.map((a) => config.agents[a]!.session)]);
  const { registry } = readRegistry(registryDir);
  for (const e of [...registry.conversations, ...registry.own_daemons]) {
    if (e.message_dir === config.messageDir || e.config === null) continue;
    try {
      const other = loadConfig({ file: e.config, baseDir: e.home }, { busUrl: 'optional' });
      for (const a of other.order) taken.add(other.agents[a]!.session);
    } catch {
      /* a config that does not load names no session now; the tmux server's list still counts */
    }
  }
  return taken;
}
