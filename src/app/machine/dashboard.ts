/**
 * Where the machine's dashboard is while `baton ui` runs (`ui.json`): it serves each registry conversation at
 * `/c/<id>/`, where a notification links when no dashboard runs in the project (config/dashboard-record.ts).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dashboardUrl, liveUrl } from '../../config/dashboard-record.js';
import { conversationId } from '../../lib/conversation-id.js';

const FILE = 'ui.json';

export function writeMachineDashboard(dir: string, url: string): () => void {
  const file = join(dir, FILE);
  try {
    writeFileSync(file, `${JSON.stringify({ pid: process.pid, url })}\n`);
  } catch {
    return () => {}; // no state folder yet (no `baton up` on this machine): nothing serves a registry
  }
  return () => {
    try {
      const r = JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown };
      if (r.pid === process.pid) rmSync(file, { force: true }); // not another dashboard's, started since
    } catch {
      /* gone already */
    }
  };
}

/** A registry conversation's link: its project's dashboard, else the machine's at `/c/<id>/`, else null. */
export function linkFor(dir: string, key: string, config: { file: string | null; host: string }): string | null {
  const own = dashboardUrl(config);
  if (own) return own;
  const machine = liveUrl(join(dir, FILE));
  const path = `c/${conversationId(key)}/`;
  return machine && URL.canParse(path, machine) ? new URL(path, machine).href : null; // a hand-edited ui.json: null
}
