/**
 * What the three API mocks (./mock-anthropic.ts, ./mock-codex.ts, ./mock-gemini.ts) share: an HTTP
 * server on loopback with a random port, the log of every request, the user turns among them counted once
 * (a client's retry of a request has the same key), a 500 in the API's shape when a handler throws, and
 * two helpers for their bodies: a streamed text's pieces, a request's tool names.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Action, Delivered } from './mock-anthropic.js';

export interface MockOptions<R> {
  /** Who this mock answers for (for log lines and ids). */
  name: string;
  /** What to do about one baton message in a user turn. */
  onMessage: (m: Delivered, req: R) => Action;
  /** What to do about a user text that carries no baton message (baton's own notes, a reminder). */
  onText?: (text: string, req: R) => Action;
  /** Called with the stream open, before the answer: return a promise to keep the model "busy". */
  hold?: (req: R) => Promise<void> | void;
  /** One line per request, for a test's diagnostics. */
  log?: (line: string) => void;
  /**
   * What each answer reports as its usage, by the request's number (default: the same small numbers for
   * every request). `distinctUsage` makes every number name the request it came from, so a count found in
   * baton's records says which requests it summed.
   */
  usage?: (seq: number) => MockUsage;
}

/** A request's usage as a mock reports it, in each API's own fields: input counts the cached tokens too. */
export interface MockUsage {
  input: number;
  cached: number;
  output: number;
  /** Anthropic's cache_creation_input_tokens; Gemini's thoughtsTokenCount and OpenAI's reasoning_tokens. */
  cacheWrite: number;
  thoughts: number;
}

/**
 * input = seq·1000+234, cached = seq·1000+78, output = seq·100+56, cache write 9, thoughts 7: any sum of
 * them names the requests it summed.
 */
export const distinctUsage = (seq: number): MockUsage => ({
  input: seq * 1000 + 234,
  cached: seq * 1000 + 78,
  output: seq * 100 + 56,
  cacheWrite: 9,
  thoughts: 7,
});

/** What every mock logs of a request before it looks at the body. */
export interface RequestBase {
  seq: number;
  /** Date.now() when the request arrived, and when its answer was complete. */
  at: number;
  answeredAt?: number;
  method: string;
  url: string;
  kind: string;
  /** The baton messages a user turn carried. */
  delivered?: Delivered[];
  /** The request's body as sent: what the model was given, its history included. */
  sent?: string;
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
    const raw = Buffer.concat(chunks).toString('utf8');
    const entry = { seq: ++this.seq, at: Date.now(), method: req.method ?? '?', url, kind: 'other', sent: raw } as R;
    this.requests.push(entry);
    return { raw, url, path: url.split('?')[0]!, entry };
  }

  protected async listen(): Promise<void> {
    await new Promise<void>((ok, fail) => {
      this.server.once('error', fail);
      this.server.listen(0, '127.0.0.1', () => ok());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** The user turns this agent's model received (a client's retry counted once), in order. */
  abstract turns(): R[];

  /** Every baton message the model received, in the order received. */
  received(): Delivered[] {
    return this.turns().flatMap((r) => r.delivered ?? []);
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

/** A text in pieces of `size` for streaming, never splitting a surrogate pair. */
export function pieces(s: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; ) {
    let end = Math.min(i + size, s.length);
    // Never split a surrogate pair between two deltas.
    if (end < s.length && /[\uD800-\uDBFF]/.test(s[end - 1]!)) end++;
    out.push(s.slice(i, end));
    i = end;
  }
  return out.length ? out : [''];
}

/** Every tool name in a request's tool list, however the API nests them (name, function.name, functionDeclarations[].name). */
export function toolNames(tools: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      v.forEach(walk);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.name === 'string') out.push(o.name);
    for (const k of ['function', 'functionDeclarations', 'tools']) if (k in o) walk(o[k]);
  };
  walk(tools);
  return out;
}
