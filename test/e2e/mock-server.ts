/**
 * What the three API mocks (./mock-anthropic.ts, ./mock-codex.ts, ./mock-gemini.ts) share: an HTTP
 * server on loopback with a random port, the log of every request, the user turns among them counted once
 * (a client's retry of a request has the same key), and a 500 in the API's shape when a handler throws.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Action, Delivered } from './mock-anthropic.js';

export interface MockOptions<R> {
  /** Who this mock answers for (for log lines and ids). */
  name: string;
  /** What to do about one baton message in a user turn. */
  onMessage: (m: Delivered, req: R) => Action;
  /** Called with the stream open, before the answer: return a promise to keep the model "busy". */
  hold?: (req: R) => Promise<void> | void;
  /** One line per request, for a test's diagnostics. */
  log?: (line: string) => void;
}

/** What every mock logs of a request before it looks at the body. */
export interface RequestBase {
  seq: number;
  /** Date.now() when the request arrived, and when its answer was complete. */
  at: number;
  answeredAt?: number;
  method: string;
  url: string;
  kind: string;
}

export abstract class MockServer<R extends RequestBase> {
  readonly requests: R[] = [];
  protected readonly server: Server;
  protected seq = 0;
  port = 0;

  constructor(
    protected readonly opts: MockOptions<R>,
    /** The API's error body for a failure of the mock itself. */
    errorBody: (message: string) => unknown,
  ) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.opts.log?.(`${this.opts.name}: mock error ${String(err)}`);
        if (res.headersSent) return void res.end();
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(errorBody(String(err))));
      });
    });
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;

  /** Read a request's body and log it (its kind 'other' until the mock knows better). */
  protected async take(req: IncomingMessage): Promise<{ raw: string; url: string; path: string; entry: R }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = req.url ?? '/';
    const entry = { seq: ++this.seq, at: Date.now(), method: req.method ?? '?', url, kind: 'other' } as R;
    this.requests.push(entry);
    return { raw: Buffer.concat(chunks).toString('utf8'), url, path: url.split('?')[0]!, entry };
  }

  protected async listen(): Promise<void> {
    await new Promise<void>((ok, fail) => {
      this.server.once('error', fail);
      this.server.listen(0, '127.0.0.1', () => ok());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** The requests that carried a user turn, in order, each once: `key` says when two are the same request. */
  protected turnsBy(key: (r: R) => unknown): R[] {
    const seen = new Set<string>();
    return this.requests.filter((r) => {
      if (r.kind !== 'turn') return false;
      const k = JSON.stringify(key(r));
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}
