/**
 * The dashboard's event streams (Server-Sent Events), capped.
 *
 * Local flood limits: 256 slow-header connections, or 300 event streams nobody read, once kept every
 * legitimate request out for 60 s. Every client here is 127.0.0.1, so a limit per address cannot tell a
 * flood from the person; instead streams are capped (the oldest goes: a real tab reconnects in a second and
 * is replayed what it missed), and a tab that stops reading is dropped once 8 MB wait for it. The cap is the
 * server's, over every conversation it serves and the overview: one per conversation would let a flood
 * spread over many conversations hold a thousand streams.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sse } from './sse.js';
import type { Sink } from './tabs.js';
import { HttpError, SECURITY_HEADERS } from './http.js';

const MAX_STREAMS = 64;
const MAX_UNREAD_BYTES = 8 * 1024 * 1024;

/** What a stream follows: a conversation's feed, or the overview's listing. */
export interface Source {
  /** Its group (a conversation's id, or the overview): the streams of a group can be ended together. */
  group: string;
  /** Whether `last` (Last-Event-ID or ?from=) is a cursor this source sent; none means any is ignored. */
  isCursor?(last: string): boolean;
  /** A tab joins from `last` (or from now); returns the function that removes it. */
  subscribe(sink: Sink, last: string | undefined): Promise<() => void>;
}

export class Streams {
  /** Each open stream, with the group (a conversation's id, or the overview) it belongs to. */
  private readonly open = new Map<ServerResponse, string>();

  constructor(
    /** Sent with every connection: after a restart of baton ui the page's controls keep working. */
    private readonly pageToken: string,
  ) {}

  /** Serve one stream of `source` from the client's Last-Event-ID (or ?from=), or from now. */
  async serve(req: IncomingMessage, res: ServerResponse, url: URL, source: Source): Promise<void> {
    const header = req.headers['last-event-id'];
    const last = (Array.isArray(header) ? header[0] : header) || url.searchParams.get('from') || undefined;
    if (last !== undefined && source.isCursor && !source.isCursor(last))
      throw new HttpError(400, 'Last-Event-ID (or from) must be a cursor as the stream sent it');
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: 1000\n\n${sse('hello', { token: this.pageToken })}`);
    this.open.set(res, source.group);
    while (this.open.size > MAX_STREAMS) {
      const oldest = this.open.keys().next().value!;
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
    leave = await source.subscribe(sink, last);
    if (res.destroyed) leave();
  }

  /** End the streams of one group (its conversation is no longer served): the tab says it is disconnected. */
  endGroup(group: string): void {
    for (const [res, g] of this.open) if (g === group) res.end();
  }

  /** End every stream (the server is closing). */
  endAll(): void {
    for (const res of this.open.keys()) res.end();
  }
}
