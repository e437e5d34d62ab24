/**
 * `baton ui`: one page and a small JSON + Server-Sent Events API over node's own http server. The guard
 * rails are guard.ts, what it answers routes.ts, the event streams streams.ts.
 *
 * Local flood limits: 256 slow-header connections once kept every legitimate request out for 60 s. Every
 * client here is 127.0.0.1, so a limit per address cannot tell a flood from the person; instead slow
 * headers are cut off fast, event streams are capped (streams.ts), and there is room for many more
 * connections than streams, so a short request always finds a place.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { entryOf, keyOf, stateDir } from '../app/machine/registry.js';
import type { Config } from '../config/config.js';
import { conversationId, routeOf } from './conversation-paths.js';
import { Conversations } from './conversations.js';
import { type Access, checkControl, checkListen, checkRequest } from './guard.js';
import { HttpError } from './http.js';
import { OverviewFeed } from './overview.js';
import { json, serveAsset } from './routes.js';
import { ConversationSite, type Shared } from './site.js';
import { Streams } from './streams.js';

const HEADERS_TIMEOUT_MS = 5000;
const REQUEST_TIMEOUT_MS = 15_000;
const MAX_CONNECTIONS = 1024;

export interface UiOptions {
  host: string;
  port: number;
  /** Required (with `accessToken`) to listen on anything but loopback. */
  allowRemote?: boolean;
  /** When given, every request needs it (a shared machine, or another one). */
  accessToken?: string | undefined;
  onError?: (err: unknown) => void;
}

export interface UiServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serve `config`'s conversation at `/` — or, with null, the overview there — and, in both cases, the
 * overview at `/all` and every conversation of the machine's registry at `/c/<id>/` (conversation-paths.ts).
 */
export async function startUi(config: Config | null, opts: UiOptions): Promise<UiServer> {
  checkListen(opts.host, opts);
  const onError = opts.onError ?? (() => {});
  const access: Access = {
    allowRemote: Boolean(opts.allowRemote),
    accessToken: opts.accessToken,
    pageToken: randomBytes(24).toString('base64url'),
    cookieName: 'baton_token', // named after the port once it is known
  };
  const shared: Shared = { access, streams: new Streams(access.pageToken), onError };
  // The machine's registry ($XDG_STATE_HOME/baton): what the overview lists.
  const registryDir = stateDir();
  const home = config
    ? await ConversationSite.open(config, conversationId(keyOf(entryOf(config, null))), shared)
    : null;
  const others = new Conversations(registryDir, shared, home);
  const overview = new OverviewFeed(shared, { registryDir, home: home?.group ?? null });
  const closeAll = async () => {
    overview.close();
    await others.close();
    await home?.close();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://baton.invalid');
    } catch {
      throw new HttpError(400, 'not a request target');
    }
    checkRequest(req, url, access);
    const route = routeOf(url.pathname);
    if (route.kind === 'redirect') return redirect(res, `${route.to}${url.search}`);
    if (route.kind === 'conversation') {
      // A control is checked before anything is opened for it: another site's form opens nothing here.
      if (req.method === 'POST') checkControl(req, access);
      const site = await others.get(route.id);
      if (!site)
        throw new HttpError(404, `no conversation ${route.id} in this machine's registry (baton ls lists them)`);
      return site.handle(req, res, url, route.rest);
    }
    if (route.kind === 'overview') return overview.handle(req, res, url, route.rest);
    if ((req.method === 'GET' || req.method === 'HEAD') && (await serveAsset(req, res, route.path))) return;
    if (home) return home.handle(req, res, url, route.path);
    if (route.path === '/') return overview.handle(req, res, url, '/');
    throw new HttpError(404, `not found: ${url.pathname} (this dashboard shows every conversation: open /)`);
  };

  const server = listenFor(handle, onError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (err: unknown) => {
    await closeAll();
    throw err;
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  access.cookieName = `baton_token_${port}`;
  const shown = opts.host.includes(':') && !opts.host.startsWith('[') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shown}:${port}/`,
    port,
    async close() {
      shared.streams.endAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeAll();
    },
  };
}

function redirect(res: ServerResponse, to: string): void {
  res.writeHead(308, { location: to, 'cache-control': 'no-store' });
  res.end();
}

/** The http server: errors become JSON with their status, malformed HTTP a 400, and slow clients are cut off. */
function listenFor(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  onError: (err: unknown) => void,
): Server {
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
  return server;
}
