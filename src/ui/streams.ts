/**
 * The dashboard's event streams (Server-Sent Events), capped.
 *
 * Local flood limits: 256 slow-header connections, or 300 event streams nobody read, once kept every
 * legitimate request out for 60 s. Every client here is 127.0.0.1, so a limit per address cannot tell a
 * flood from the person; instead streams are capped (the oldest goes: a real tab reconnects in a second and
 * is replayed what it missed), and a tab that stops reading is dropped once 8 MB wait for it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Feed, parseCursor, sse } from './feed.js';
import { HttpError, SECURITY_HEADERS } from './http.js';

export const MAX_STREAMS = 64;
const MAX_UNREAD_BYTES = 8 * 1024 * 1024;

export class Streams {
  private readonly open = new Set<ServerResponse>();

  constructor(
    private readonly feed: Feed,
    /** Sent with every connection: after a restart of baton ui the page's controls keep working. */
    private readonly pageToken: string,
  ) {}

  /** Serve one stream from the client's Last-Event-ID (or ?from=), or from now. */
  async serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
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
    res.write(`retry: 1000\n\n${sse('hello', { token: this.pageToken })}`);
    this.open.add(res);
    while (this.open.size > MAX_STREAMS) {
      const oldest = this.open.values().next().value!;
      this.open.delete(oldest);
      oldest.destroy();
    }
    let leave: (() => void) | null = null;
    res.on('close', () => {
      leave?.();
      this.open.delete(res);
    });
    const sink = (chunk: string) => {
      if (res.destroyed || res.writableEnded) return false;
      if (res.writableLength > MAX_UNREAD_BYTES) {
        res.destroy();
        return false;
      }
      res.write(chunk);
      return true;
    };
    leave = await this.feed.subscribe(sink, last);
    if (res.destroyed) leave();
  }

  /** End every stream (the server is closing). */
  endAll(): void {
    for (const res of this.open) res.end();
  }
}
