/**
 * The conversations a dashboard serves besides (or instead of) its project's own: every one in the machine's registry
 * (app/machine/registry.ts), each opened when its page is first asked for — its bus and feed cost a watch and a timer,
 * and nobody may ever look at most of them — and closed when its entry leaves the registry (`baton down`): its open
 * tabs are then told they are disconnected instead of following a conversation the machine no longer serves.
 */
import { hostname } from 'node:os';
import { stateDirs } from '../app/machine/identity.js';
import { type Entry, keyOf, readRegistry } from '../app/machine/registry.js';
import { loadConfig } from '../config/load.js';
import { conversationId } from './conversation-paths.js';
import { HttpError } from './http.js';
import { ConversationSite, type Shared } from './site.js';

/** How often the registry is read again to let go of conversations removed from it (while any is open). */
const REAP_EVERY_MS = 2000;

export class Conversations {
  private readonly sites = new Map<string, Promise<ConversationSite>>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly registryDir: string,
    private readonly shared: Shared,
    /** The project's own conversation (served at `/` too): reused under its id, never let go of. */
    private readonly pinned: ConversationSite | null,
  ) {
    this.timer = setInterval(() => void this.reap().catch(shared.onError), REAP_EVERY_MS);
    this.timer.unref();
  }

  /** The conversation with this id, opened if it is not yet; undefined when the registry has none. */
  async get(id: string): Promise<ConversationSite | undefined> {
    if (this.closed) throw new HttpError(503, 'baton ui is stopping');
    if (this.pinned?.group === id) return this.pinned;
    const open = this.sites.get(id);
    if (open) return open;
    const entry = this.entries().find((e) => conversationId(keyOf(e)) === id);
    if (!entry) return undefined;
    const opening = this.open(entry, id);
    this.sites.set(id, opening);
    opening.catch(() => this.sites.get(id) === opening && this.sites.delete(id));
    return opening;
  }

  /** Let go of the conversations the registry no longer has. */
  async reap(): Promise<void> {
    if (!this.sites.size) return;
    const ids = new Set(this.entries().map((e) => conversationId(keyOf(e))));
    for (const [id, opening] of this.sites) {
      if (ids.has(id)) continue;
      this.sites.delete(id);
      await opening.then((s) => s.close()).catch(() => {});
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    const all = [...this.sites.values()];
    this.sites.clear();
    await Promise.all(all.map((o) => o.then((s) => s.close()).catch(() => {})));
  }

  /** Every machine name's registry on this box (app/machine/identity.ts), own daemons too, as `baton ls` lists them. */
  private entries(): Entry[] {
    const dirs = new Set([this.registryDir, ...stateDirs().map((d) => d.dir)]);
    return [...dirs].flatMap((d) => {
      const { registry } = readRegistry(d);
      return [...registry.conversations, ...registry.own_daemons];
    });
  }

  private async open(entry: Entry, id: string): Promise<ConversationSite> {
    let config: ReturnType<typeof loadConfig>;
    try {
      // As its daemon loads it: under the machine name its `up` gave it.
      const host = entry.host ?? hostname();
      config = loadConfig({ file: entry.config, baseDir: entry.home }, { fallback: 'default', host });
    } catch (err) {
      const why = err instanceof Error ? err.message.split('\n')[0]! : String(err);
      throw new HttpError(503, `the conversation in ${entry.home} cannot be shown: ${why}`);
    }
    return ConversationSite.open(config, id, this.shared);
  }
}
