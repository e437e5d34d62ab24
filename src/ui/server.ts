/**
 * `baton ui`: one page and a small JSON + Server-Sent Events API over node's own http server.
 *
 * Guard rails, in order, for every request:
 *  - Host must be a loopback name (unless --allow-remote): a DNS-rebinding page cannot read the
 *    conversation through a name it controls. Any port, so an SSH tunnel or port mapping works.
 *  - With an access token (--token; required by --allow-remote), it is needed for everything: from a
 *    cookie, or ?token= once.
 *  - A POST needs the per-run token embedded in the page (X-Baton-Token), an Origin equal to this
 *    server's, and a JSON body within size: another site's form or script cannot steer the agents.
 * The page is served with a Content-Security-Policy that allows only its own script and style, and it
 * writes agent text with textContent only; the API returns agent strings as JSON, never as HTML.
 * Controls build the same requests as the CLI commands and go through the same request() call.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { UsageError } from '../app/input.js';
import { PKG_ROOT } from '../app/paths.js';
import { request } from '../app/requests.js';
import { openBus } from '../bus/open.js';
import type { Config } from '../config/config.js';
import { RECORD_ID_SOURCE } from '../core/ids.js';
import { MESSAGE_TYPES } from '../core/message.js';
import type { Request } from '../core/requests.js';
import type { Snapshot } from './api.js';
import { isOp, toRequest } from './controls.js';
import { Feed, parseCursor, sse, type FeedOptions } from './feed.js';
import { listPending, listRejected } from './folders.js';
import { cookie, HttpError, isLoopback, readJsonBody, sameToken, SECURITY_HEADERS } from './http.js';

const MESSAGE_PATH = new RegExp(`^/api/messages/(${RECORD_ID_SOURCE})$`);

/*
 * Local flood limits (issue 13: 256 slow-header connections, or 300 event streams nobody read, kept every
 * legitimate request out for 60 s). Every client here is 127.0.0.1, so a limit per address cannot tell a
 * flood from the person; instead slow headers are cut off fast, event streams are capped (oldest out), and
 * there is room for many more connections than streams, so a short request always finds a place.
 */
const HEADERS_TIMEOUT_MS = 5000;
const REQUEST_TIMEOUT_MS = 15_000;
const MAX_STREAMS = 64;
const MAX_CONNECTIONS = 1024;

export interface UiOptions {
  host: string;
  port: number;
  /** Required (with `accessToken`) to listen on anything but loopback. */
  allowRemote?: boolean;
  /** When given, every request needs it (a shared machine, or another one). */
  accessToken?: string | undefined;
  feed?: FeedOptions;
  onError?: (err: unknown) => void;
}

export interface UiServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The page's modules (web/*.ts, built to dist/web/) and its stylesheet: nothing else is served from disk. */
const ASSETS: Record<string, { file: string; type: string }> = {
  ...Object.fromEntries(
    ['app', 'dom', 'transcript', 'panels'].map((m) => [
      `/${m}.js`,
      { file: join(PKG_ROOT, 'dist', 'web', `${m}.js`), type: 'text/javascript; charset=utf-8' },
    ]),
  ),
  '/style.css': { file: join(PKG_ROOT, 'web', 'style.css'), type: 'text/css; charset=utf-8' },
};
const PAGE = join(PKG_ROOT, 'web', 'index.html');
const BODY_TIMEOUT_MS = 10_000;

export async function startUi(config: Config, opts: UiOptions): Promise<UiServer> {
  const remote = !isLoopback(opts.host);
  if (remote && !opts.allowRemote)
    throw new UsageError(
      `${opts.host} is not a loopback address: add --allow-remote and --token to serve other machines`,
    );
  if (opts.allowRemote && !opts.accessToken) throw new UsageError('--allow-remote needs --token (or BATON_UI_TOKEN)');
  if (opts.accessToken !== undefined && opts.accessToken.length < 16)
    throw new UsageError('the access token (--token or BATON_UI_TOKEN) must be at least 16 characters');
  const onError = opts.onError ?? (() => {});
  const pageToken = randomBytes(24).toString('base64url');
  const maxBody = config.inbox.max_bytes + 64 * 1024;
  const bus = openBus(config);
  const feed = new Feed(config, bus, { onError, ...opts.feed });
  await feed.start();
  const streams = new Set<ServerResponse>();
  // One control at a time: with no daemon running, each request starts a one-shot daemon under the lock.
  let controls: Promise<unknown> = Promise.resolve();
  // Cookies ignore the port: each server names its own, so two dashboards on one host do not collide.
  let cookieName = 'baton_token';

  const hostOk = (req: IncomingMessage): boolean => {
    if (opts.allowRemote) return true; // the access token guards every request instead
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(req.headers.host ?? '');
    return !!m && isLoopback(m[1]!.toLowerCase());
  };

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, {
      ...SECURITY_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    res.end(JSON.stringify(body));
  };

  const readBody = (req: IncomingMessage) => readJsonBody(req, maxBody, BODY_TIMEOUT_MS);

  const stream = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const header = req.headers['last-event-id'];
    const last = (Array.isArray(header) ? header[0] : header) || url.searchParams.get('from') || undefined;
    if (last !== undefined && !parseCursor(last))
      throw new HttpError(400, 'Last-Event-ID (or from) must be a cursor as the stream sent it');
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // The page's token comes with every connection: after a restart of baton ui the controls keep working.
    res.write(`retry: 1000\n\n${sse('hello', { token: pageToken })}`);
    streams.add(res);
    // Over the cap, the oldest stream goes (a real tab reconnects in a second and is replayed what it
    // missed): idle streams cannot take every connection (issue 13: 300 of them locked the page out).
    while (streams.size > MAX_STREAMS) {
      const oldest = streams.values().next().value!;
      streams.delete(oldest);
      oldest.destroy();
    }
    let leave: (() => void) | null = null;
    res.on('close', () => {
      leave?.();
      streams.delete(res);
    });
    const sink = (chunk: string) => {
      if (res.destroyed || res.writableEnded) return false;
      // A tab that stops reading is dropped; it reconnects and catches up from its Last-Event-ID.
      if (res.writableLength > 8 * 1024 * 1024) {
        res.destroy();
        return false;
      }
      res.write(chunk);
      return true;
    };
    leave = await feed.subscribe(sink, last);
    if (res.destroyed) leave();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://baton.invalid');
    } catch {
      throw new HttpError(400, 'not a request target');
    }
    if (!hostOk(req))
      throw new HttpError(421, 'this server answers only to a loopback address (Host: 127.0.0.1, localhost or [::1])');
    if (opts.accessToken !== undefined) {
      const given = url.searchParams.get('token') ?? cookie(req, cookieName);
      if (!sameToken(given, opts.accessToken!))
        throw new HttpError(401, 'open the address baton ui printed (it carries ?token=)');
    }
    const path = url.pathname;
    if (req.method === 'POST') {
      const op = path.startsWith('/api/') ? path.slice(5) : undefined;
      if (!isOp(op)) throw new HttpError(404, `no such control: ${path}`);
      const origin = req.headers.origin;
      // https too: behind a TLS proxy the page's origin is https with the same Host.
      if (!origin || (origin !== `http://${req.headers.host}` && origin !== `https://${req.headers.host}`))
        throw new HttpError(403, 'cross-origin request refused (Origin must be this server)');
      if (!sameToken(req.headers['x-baton-token'] as string | undefined, pageToken))
        throw new HttpError(
          403,
          'missing or wrong X-Baton-Token (reload the page: the token changes with each run of baton ui)',
        );
      const body = await readBody(req);
      let built: Request;
      try {
        built = toRequest(config, op, body);
      } catch (err) {
        if (err instanceof UsageError) throw new HttpError(400, err.message);
        throw err;
      }
      const reply = controls.then(() => request(config, built));
      controls = reply.catch(() => {});
      const r = await reply;
      json(res, r.ok ? 200 : 409, r);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, `${req.method} is not allowed here`);
    if (path === '/') {
      const html = (await readFile(PAGE, 'utf8')).replace('__BATON_TOKEN__', pageToken);
      const headers: Record<string, string> = {
        ...SECURITY_HEADERS,
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      };
      if (opts.accessToken !== undefined)
        headers['set-cookie'] =
          `${cookieName}=${encodeURIComponent(opts.accessToken)}; HttpOnly; SameSite=Strict; Path=/`;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : html);
      return;
    }
    const asset = Object.hasOwn(ASSETS, path) ? ASSETS[path] : undefined;
    if (asset) {
      const body = await readFile(asset.file).catch(() => null);
      if (!body) throw new HttpError(500, `${asset.file} is missing: run npm run build`);
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type, 'cache-control': 'no-cache' });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    if (path === '/api/stream') return stream(req, res, url);
    if (path === '/api/snapshot') {
      const cursor = feed.cursor;
      const messages = await feed.transcript.page(undefined, pageSize(url));
      const snapshot: Snapshot = {
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
        status: feed.lastStatus,
        screens: feed.lastScreens,
        messages,
        events: feed.recentEvents,
      };
      json(res, 200, snapshot);
      return;
    }
    if (path === '/api/messages') {
      const before = url.searchParams.get('before');
      const n = before === null ? undefined : Number(before);
      if (n !== undefined && (!Number.isSafeInteger(n) || n < 0))
        throw new HttpError(400, 'before must be a position (a whole number ≥ 0)');
      json(res, 200, await feed.transcript.page(n, pageSize(url)));
      return;
    }
    const one = MESSAGE_PATH.exec(path);
    if (one) {
      const b = await feed.transcript.bubble(one[1]!, Number.MAX_SAFE_INTEGER);
      if (!b) throw new HttpError(404, `${one[1]} is not in the archive`);
      json(res, 200, b);
      return;
    }
    if (path === '/api/rejected') return json(res, 200, await listRejected(bus, 200));
    if (path === '/api/pending') return json(res, 200, { items: await listPending(bus) });
    throw new HttpError(404, `not found: ${path}`);
  };

  // Slow clients are checked every second (node's default is 30 s): a header that trickles in is cut off
  // after HEADERS_TIMEOUT_MS, a request after REQUEST_TIMEOUT_MS (an event stream's response may last).
  const server: Server = createServer(
    { connectionsCheckingInterval: 1000, headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        if (!(err instanceof HttpError)) onError(err);
        const status = err instanceof HttpError ? err.status : 500;
        const message = err instanceof Error ? err.message : String(err);
        if (res.headersSent) res.destroy();
        else {
          // A request whose body was not read to the end cannot share its connection with the next one.
          if (status === 408 || status === 413) res.setHeader('connection', 'close');
          json(res, status, { ok: false, error: message, message });
        }
      });
    },
  );
  // Malformed HTTP gets a 400 from node; it must never take the server down.
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  server.maxConnections = MAX_CONNECTIONS;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (err: unknown) => {
    await feed.close();
    throw err;
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  cookieName = `baton_token_${port}`;
  const shown = opts.host.includes(':') && !opts.host.startsWith('[') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shown}:${port}/`,
    port,
    async close() {
      for (const res of streams) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await feed.close();
    },
  };
}

function pageSize(url: URL): number {
  const n = Number(url.searchParams.get('limit') ?? 100);
  if (!Number.isSafeInteger(n) || n < 1 || n > 500) throw new HttpError(400, 'limit must be 1..500');
  return n;
}
