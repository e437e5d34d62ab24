/**
 * One conversation as the dashboard serves it: its bus, its feed (the events turned into Server-Sent
 * Events), its controls, and the page with its API under one prefix — `/` when `baton ui` serves the
 * project's conversation, `/c/<id>/` for each one the overview lists (conversation-paths.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { openBus } from '../bus/open.js';
import type { Config } from '../config/config.js';
import { Feed, parseCursor } from './feed.js';
import { type Access, checkControl } from './guard.js';
import { HttpError } from './http.js';
import { Controls, type Site, serveGet } from './routes.js';
import type { Streams } from './streams.js';

/** What every conversation of one server shares. */
export interface Shared {
  access: Access;
  streams: Streams;
  onError: (err: unknown) => void;
}

export const accessCookie = (access: Access): string | undefined =>
  access.accessToken === undefined
    ? undefined
    : `${access.cookieName}=${encodeURIComponent(access.accessToken)}; HttpOnly; SameSite=Strict; Path=/`;

export class ConversationSite {
  private constructor(
    /** The streams' group: its streams end when it is closed. */
    readonly group: string,
    private readonly site: Site,
    private readonly controls: Controls,
    private readonly shared: Shared,
  ) {}

  /** Its feed reads the conversation to its end before it answers anything. */
  static async open(config: Config, group: string, shared: Shared): Promise<ConversationSite> {
    const bus = openBus(config);
    const feed = new Feed(config, bus, { onError: shared.onError });
    try {
      await feed.start();
    } catch (err) {
      await feed.close();
      throw err;
    }
    const site: Site = {
      config,
      bus,
      feed,
      pageToken: shared.access.pageToken,
      accessCookie: () => accessCookie(shared.access),
    };
    return new ConversationSite(group, site, new Controls(config), shared);
  }

  get config(): Config {
    return this.site.config;
  }

  /** A request whose path under this conversation's prefix is `path` (the guard's request checks passed). */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<void> {
    const { access, streams } = this.shared;
    if (req.method === 'POST') return this.controls.handle(req, res, path, () => checkControl(req, access));
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, `${req.method} is not allowed here`);
    const feed = this.site.feed;
    if (path === '/api/stream')
      return streams.serve(req, res, url, {
        group: this.group,
        isCursor: (last) => parseCursor(last) !== null,
        subscribe: (sink, last) => feed.subscribe(sink, last),
      });
    if (!(await serveGet(this.site, req, res, { url, path }))) throw new HttpError(404, `not found: ${url.pathname}`);
  }

  async close(): Promise<void> {
    this.shared.streams.endGroup(this.group);
    await this.site.feed.close();
  }
}
