/**
 * What the dashboard answers: the page and its assets, the JSON API (snapshot, transcript pages, one
 * message, rejections, approvals waiting) and the controls. The page writes agent text with textContent
 * only; the API returns agent strings as JSON, never as HTML. Controls build the same requests as the CLI
 * commands and go through the same request() call.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { gatherExport, type ExportSource } from '../app/export/gather.js';
import { exportHtml } from '../app/export/html.js';
import { exportMarkdown } from '../app/export/markdown.js';
import { UsageError } from '../app/input.js';
import { PKG_ROOT } from '../app/paths.js';
import { request } from '../app/requests.js';
import type { Listings } from '../bus/bus.js';
import type { Config } from '../config/config.js';
import { RECORD_ID_SOURCE } from '../core/ids.js';
import { MESSAGE_TYPES } from '../core/message.js';
import type { Request } from '../core/requests.js';
import type { Snapshot } from './api.js';
import { isOp, toRequest } from './controls.js';
import type { Feed } from './feed.js';
import { HttpError, readJsonBody, SECURITY_HEADERS } from './http.js';

const MESSAGE_PATH = new RegExp(`^/api/messages/(${RECORD_ID_SOURCE})$`);
const BODY_TIMEOUT_MS = 10_000;

/** The page's modules (web/*.ts, built to dist/web/) and its stylesheet: nothing else is served from disk. */
const ASSETS: Record<string, { file: string; type: string }> = {
  ...Object.fromEntries(
    ['app', 'dom', 'transcript', 'panels', 'dialogs', 'overview'].map((m) => [
      `/${m}.js`,
      { file: join(PKG_ROOT, 'dist', 'web', `${m}.js`), type: 'text/javascript; charset=utf-8' },
    ]),
  ),
  '/style.css': { file: join(PKG_ROOT, 'web', 'style.css'), type: 'text/css; charset=utf-8' },
};
const PAGE = join(PKG_ROOT, 'web', 'index.html');

export interface Site {
  config: Config;
  bus: Listings & ExportSource;
  feed: Feed;
  pageToken: string;
  /** Set as a cookie with the page, when there is one. */
  accessCookie: () => string | undefined;
}

const noStore = (type: string) => ({ ...SECURITY_HEADERS, 'content-type': type, 'cache-control': 'no-store' });

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, noStore('application/json; charset=utf-8'));
  res.end(JSON.stringify(body));
}

/** One control at a time: with no daemon running, each request starts a one-shot daemon under the lock. */
export class Controls {
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly config: Config) {}

  /** `guard` runs once the path names a control (an unknown one is a 404 whoever asks). */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, guard: () => void): Promise<void> {
    const op = path.startsWith('/api/') ? path.slice(5) : undefined;
    if (!isOp(op)) throw new HttpError(404, `no such control: ${path}`);
    guard();
    const body = await readJsonBody(req, this.config.inbox.max_bytes + 64 * 1024, BODY_TIMEOUT_MS);
    let built: Request;
    try {
      built = toRequest(this.config, op, body);
    } catch (err) {
      if (err instanceof UsageError) throw new HttpError(400, err.message);
      throw err;
    }
    const reply = this.last.then(() => request(this.config, built));
    this.last = reply.catch(() => {});
    const r = await reply;
    json(res, r.ok ? 200 : 409, r);
  }
}

/** The page (index.html, or the overview's), with the per-run token and the access cookie when there is one. */
export async function servePage(
  res: ServerResponse,
  page: { file: string; pageToken: string; cookie: string | undefined; head: boolean },
): Promise<void> {
  const html = (await readFile(page.file, 'utf8')).replace('__BATON_TOKEN__', page.pageToken);
  const headers: Record<string, string> = noStore('text/html; charset=utf-8');
  if (page.cookie !== undefined) headers['set-cookie'] = page.cookie;
  res.writeHead(200, headers);
  res.end(page.head ? undefined : html);
}

/** The pages' modules and stylesheet (the same for every conversation); false when `path` is none of them. */
export async function serveAsset(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  const asset = Object.hasOwn(ASSETS, path) ? ASSETS[path] : undefined;
  if (!asset) return false;
  const body = await readFile(asset.file).catch(() => null);
  if (!body) throw new HttpError(500, `${asset.file} is missing: run npm run build`);
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type, 'cache-control': 'no-cache' });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

/**
 * Answer a GET or HEAD for one conversation; `path` is under its prefix (`/` is its page). False when
 * nothing here has that path.
 */
export async function serveGet(
  site: Site,
  req: IncomingMessage,
  res: ServerResponse,
  { url, path }: { url: URL; path: string },
): Promise<boolean> {
  if (path === '/') {
    const page = { file: PAGE, pageToken: site.pageToken, cookie: site.accessCookie(), head: req.method === 'HEAD' };
    await servePage(res, page);
    return true;
  }
  if (path === '/export.html' || path === '/export.md') {
    await serveExport(site, res, path === '/export.html' ? 'html' : 'md', req.method === 'HEAD');
    return true;
  }
  const api = await apiAnswer(site, path, url);
  if (api === undefined) return false;
  json(res, 200, api);
  return true;
}

/** The conversation as `baton export` writes it, as a download (the page's "Export" link). */
async function serveExport(site: Site, res: ServerResponse, format: 'html' | 'md', head: boolean): Promise<void> {
  const doc = await gatherExport(site.bus, site.config, new Date());
  const body = format === 'html' ? exportHtml(doc) : exportMarkdown(doc);
  const type = format === 'html' ? 'text/html; charset=utf-8' : 'text/markdown; charset=utf-8';
  res.writeHead(200, {
    ...noStore(type),
    'content-disposition': `attachment; filename="baton-conversation.${format}"`,
  });
  res.end(head ? undefined : body);
}

async function apiAnswer(site: Site, path: string, url: URL): Promise<unknown> {
  const { feed } = site;
  if (path === '/api/snapshot') {
    // The cursor first: events after it are replayed to the tab, so none falls between it and the page.
    const cursor = feed.cursor;
    return snapshot(site, cursor, await feed.transcript.page(undefined, pageSize(url)));
  }
  if (path === '/api/messages') {
    const before = url.searchParams.get('before');
    const n = before === null ? undefined : Number(before);
    if (n !== undefined && (!Number.isSafeInteger(n) || n < 0))
      throw new HttpError(400, 'before must be a position (a whole number ≥ 0)');
    return feed.transcript.page(n, pageSize(url));
  }
  const one = MESSAGE_PATH.exec(path);
  if (one) {
    const b = await feed.transcript.bubble(one[1]!, Number.MAX_SAFE_INTEGER);
    if (!b) throw new HttpError(404, `${one[1]} is not in the archive`);
    return b;
  }
  // The newest 200 rejections with why; moderated mode's waiting messages with what they say (capped), in order.
  if (path === '/api/rejected') return site.bus.rejections(200);
  if (path === '/api/pending') return { items: await site.bus.approvalsView(16 * 1024) };
  return undefined;
}

function snapshot(site: Site, cursor: string, messages: Snapshot['messages']): Snapshot {
  const { config, feed } = site;
  return {
    cursor,
    conversation: {
      message_dir: config.messageDir,
      policy: config.turns.policy,
      moderated: config.turns.moderated,
      max_turns: config.turns.max_turns,
      agents: config.order.map((n) => ({ name: n, kind: config.agents[n]!.kind })),
      directions: config.directions.map((d) => ({ name: d.name, from: d.from, to: d.to })),
      types: MESSAGE_TYPES,
    },
    status: feed.live.status,
    screens: feed.live.screens,
    messages,
    events: feed.recentEvents,
  };
}

function pageSize(url: URL): number {
  const n = Number(url.searchParams.get('limit') ?? 100);
  if (!Number.isSafeInteger(n) || n < 1 || n > 500) throw new HttpError(400, 'limit must be 1..500');
  return n;
}
