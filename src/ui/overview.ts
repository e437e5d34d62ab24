/**
 * The overview: every conversation of this machine's daemon (what `baton ls` lists: app/status/list.ts),
 * live. The listing is computed here on a timer only while a tab shows it, and pushed to every tab as a
 * `listing` event when it changed — tabs never poll, and a page with forty conversations costs one
 * listing per interval however many tabs are open. Each row leads to its conversation's view (`/c/<id>/`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { type Listing, listConversations } from '../app/status/list.js';
import { keyOf } from '../app/machine/registry.js';
import { PKG_ROOT } from '../app/paths.js';
import type { Overview, OverviewRow } from './api.js';
import { conversationId, conversationPath } from './conversation-paths.js';
import { HttpError } from './http.js';
import { json, servePage } from './routes.js';
import { accessCookie, type Shared } from './site.js';
import { sse } from './sse.js';
import { type Sink, Tabs } from './tabs.js';

const PAGE = join(PKG_ROOT, 'web', 'overview.html');
const OVERVIEW_GROUP = 'overview';

export interface OverviewOptions {
  registryDir: string;
  /** The conversation this server shows at `/`, if any. */
  home: string | null;
}

/** The listing as the page reads it: each row with its id and its view's path. */
export function overviewOf(l: Listing, home: string | null): Overview {
  const conversations = l.conversations.map((r): OverviewRow => {
    const id = conversationId(keyOf({ ...r, home: r.folder }));
    return { ...r, id, path: conversationPath(id) };
  });
  return { registry: l.registry, daemon: l.daemon, problem: l.problem, conversations, home };
}

export class OverviewFeed {
  private readonly tabs = new Tabs();
  private lastSent = '';
  private reading: Promise<Overview> | null = null;
  private readonly timers: NodeJS.Timeout[];

  constructor(
    private readonly shared: Shared,
    private readonly opts: OverviewOptions,
  ) {
    this.timers = [
      setInterval(() => this.tabs.size && void this.refresh().catch(shared.onError), 1500),
      setInterval(() => this.tabs.broadcast(': keep-alive\n\n'), 15_000),
    ];
  }

  /** The listing now; one read at a time, a caller meanwhile gets the one under way. */
  read(): Promise<Overview> {
    this.reading ??= listConversations(this.opts.registryDir)
      .then((l) => overviewOf(l, this.opts.home))
      .finally(() => (this.reading = null));
    return this.reading;
  }

  /** `rest` is the path under /all (`/` is the page). */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL, rest: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, `${req.method} is not allowed here`);
    const { access, streams } = this.shared;
    if (rest === '/') {
      const head = req.method === 'HEAD';
      return servePage(res, { file: PAGE, pageToken: access.pageToken, cookie: accessCookie(access), head });
    }
    if (rest === '/api/listing') return json(res, 200, await this.read());
    if (rest === '/api/stream')
      return streams.serve(req, res, url, { group: OVERVIEW_GROUP, subscribe: (sink) => this.subscribe(sink) });
    throw new HttpError(404, `not found: ${url.pathname}`);
  }

  close(): void {
    for (const t of this.timers) clearInterval(t);
  }

  /** A tab joins: the listing now, then each one that differs from the last sent. */
  private subscribe(sink: Sink): Promise<() => void> {
    return this.tabs.join(sink, async (tab) => void tab.send(sse('listing', await this.read())));
  }

  private async refresh(): Promise<void> {
    const overview = await this.read();
    const text = JSON.stringify(overview);
    if (text === this.lastSent) return;
    this.lastSent = text;
    this.tabs.broadcast(sse('listing', overview));
  }
}
