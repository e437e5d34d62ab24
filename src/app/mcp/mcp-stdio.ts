/**
 * `baton mcp`'s stdio transport (newline-delimited JSON-RPC) with guards the SDK's StdioServerTransport lacks:
 * a line over `limit` is never buffered — its `id` is scanned for (request-id.ts) and answered -32600, and the
 * server goes on (the SDK's 10 MB throw closed it silently); nothing but `initialize`, `notifications/initialized`
 * and `ping` runs before the handshake (-32002); at stdin's end the requests being served are answered first (up
 * to DRAIN_MS: closing at once dropped a stored post's reply). docs/decisions/0008-what-an-agent-writes-is-hostile.md.
 */
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  ErrorCode,
  isJSONRPCNotification,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { RequestIdScan } from './request-id.js';

/** JSON-RPC's code for a server that has not been initialized (as the Language Server Protocol uses it). */
const NOT_INITIALIZED = -32002;

type Id = string | number | null;

/** How long, once stdin has ended, requests being served may take (a post: seconds); a stuck one must not keep us. */
export const DRAIN_MS = 30_000;

export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The line read so far (under the limit), or the scan of one over it. */
  private pieces: Buffer[] = [];
  private length = 0;
  private over: RequestIdScan | null = null;
  private handshake: 'none' | 'initializing' | 'done' = 'none';
  private closed = false;
  /** Requests handed to the server and not answered yet: stdin's end waits for them (the header). */
  private readonly serving = new Set<string | number>();
  private ended = false;
  private drain: NodeJS.Timeout | undefined;

  constructor(
    /** The longest line read, in bytes. */
    private readonly limit: number,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('error', this.onError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(serializeMessage(message));
    if ('id' in message && !('method' in message) && this.serving.delete(message.id as string | number))
      this.closeWhenDone();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.drain);
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('error', this.onError);
    this.pieces = [];
    this.over = null;
    this.onclose?.();
  }

  /** stdin ended: what is being served is answered first, then the transport closes. */
  private readonly onEnd = () => {
    if (this.length > 0 || this.over) this.lineEnded(); // a last line with no line feed after it is a line too
    this.ended = true;
    this.closeWhenDone();
    if (!this.closed) this.drain = setTimeout(() => void this.close(), DRAIN_MS);
  };

  private closeWhenDone(): void {
    if (this.ended && this.serving.size === 0) void this.close();
  }

  /** The client gave up on a request (notifications/cancelled): the server answers it no more. */
  private cancelled(message: JSONRPCMessage): void {
    if (!isJSONRPCNotification(message) || message.method !== 'notifications/cancelled') return;
    const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
    if ((typeof id === 'string' || typeof id === 'number') && this.serving.delete(id)) this.closeWhenDone();
  }
  private readonly onError = (err: Error) => this.onerror?.(err);

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let start = 0; start < data.length; ) {
      const nl = data.indexOf(0x0a, start);
      this.take(data.subarray(start, nl < 0 ? data.length : nl));
      if (nl < 0) return;
      this.lineEnded();
      start = nl + 1;
    }
  };

  /** Part of the current line: kept while under the limit, else only scanned for its id. */
  private take(piece: Buffer): void {
    this.length += piece.length;
    if (!this.over && this.length > this.limit) {
      this.over = new RequestIdScan();
      for (const p of this.pieces) this.over.scan(p);
      this.pieces = [];
    }
    if (this.over) this.over.scan(piece);
    else if (piece.length) this.pieces.push(piece);
  }

  private lineEnded(): void {
    const { over, length, pieces } = this;
    this.pieces = [];
    this.length = 0;
    this.over = null;
    const tooLarge = `request too large: ${length} bytes, over the limit of ${this.limit}; it was not read`;
    if (over) void this.refuse(over.id(), ErrorCode.InvalidRequest, tooLarge);
    else this.line(Buffer.concat(pieces).toString('utf8').replace(/\r$/, ''));
  }

  private line(text: string): void {
    if (!text.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      void this.refuse(null, ErrorCode.ParseError, 'parse error: the line is not JSON');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const v = (value && typeof value === 'object' ? value : {}) as { id?: unknown; method?: unknown };
      const id = typeof v.id === 'string' || typeof v.id === 'number' ? v.id : null;
      // A malformed response (it has no method) answers nothing of ours: not answered either.
      if (v.method !== undefined || !('result' in v || 'error' in v))
        void this.refuse(id, ErrorCode.InvalidRequest, 'invalid request: not a JSON-RPC 2.0 message');
      return;
    }
    if (!this.admitted(parsed.data)) return;
    if (isJSONRPCRequest(parsed.data)) this.serving.add(parsed.data.id);
    this.cancelled(parsed.data);
    this.onmessage?.(parsed.data);
  }

  /** The handshake before anything else: a request that comes before it is refused here. */
  private admitted(message: JSONRPCMessage): boolean {
    if (isJSONRPCRequest(message)) {
      if (message.method === 'initialize') {
        if (this.handshake === 'none') this.handshake = 'initializing';
        return true;
      }
      if (message.method === 'ping' || this.handshake === 'done') return true;
      const why = `not initialized: send "initialize", then "notifications/initialized", before "${message.method}"`;
      void this.refuse(message.id, NOT_INITIALIZED, why);
      return false;
    }
    if (isJSONRPCNotification(message) && message.method === 'notifications/initialized' && this.handshake !== 'none')
      this.handshake = 'done';
    return true;
  }

  private refuse(id: Id, code: number, message: string): Promise<void> {
    return this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  private write(line: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(line)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }
}
