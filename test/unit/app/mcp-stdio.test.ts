/**
 * app/mcp/mcp-stdio.ts against in-memory streams: lines split anywhere across chunks, CRLF, a line at the
 * limit read and one byte over it answered (and its rest discarded, the next line read), messages that
 * are not JSON-RPC answered, and the handshake before any other request.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { DRAIN_MS, GuardedStdioTransport } from '../../../src/app/mcp/mcp-stdio.js';

function world(limit: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: unknown[] = [];
  let rest = '';
  stdout.on('data', (c: Buffer) => {
    const lines = (rest + c.toString()).split('\n');
    rest = lines.pop()!;
    for (const l of lines) out.push(JSON.parse(l));
  });
  const t = new GuardedStdioTransport(limit, stdin, stdout);
  const got: unknown[] = [];
  t.onmessage = (m) => got.push(m);
  let closed = false;
  t.onclose = () => (closed = true);
  return { t, stdin, out, got, closed: () => closed, tick: () => new Promise((r) => setImmediate(r)) };
}

const line = (o: object) => `${JSON.stringify({ jsonrpc: '2.0', ...o })}\n`;
const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } };

describe('GuardedStdioTransport', () => {
  it('reads lines split anywhere, with CRLF; answers one over the limit, discards its rest, reads the next', async () => {
    const w = world(300);
    await w.t.start();
    const text = line({ id: 1, method: 'initialize', params: INIT }).replace('\n', '\r\n');
    for (const ch of text) w.stdin.write(ch);
    await w.tick();
    expect(w.got).toEqual([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT }]);
    w.stdin.write(line({ method: 'notifications/initialized' }));
    const at = (n: number) => `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"p":"${'x'.repeat(n)}"}}`;
    const exactly = at(300 - at(0).length);
    expect(Buffer.byteLength(exactly)).toBe(300);
    w.stdin.write(`${exactly}\n`);
    const over = at(301 - at(0).length);
    w.stdin.write(over.slice(0, 30));
    w.stdin.write(`${over.slice(30).replace('"id":7', '"id":8')}\n${line({ id: 9, method: 'ping' })}`);
    await w.tick();
    expect(w.got.map((m) => (m as { id?: number }).id)).toEqual([1, undefined, 7, 9]);
    expect(w.out).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32600, message: 'request too large: 301 bytes, over the limit of 300; it was not read' },
      },
    ]);
  });

  it('answers what is not JSON-RPC, refuses requests before the handshake, and closes when stdin ends', async () => {
    const w = world(1000);
    await w.t.start();
    w.stdin.write('nonsense\n\n   \n');
    w.stdin.write(line({ id: 'a', method: 5 }));
    w.stdin.write(line({ id: 'r', result: { a: 'stray response, passed on' } }));
    w.stdin.write(line({ id: 's', result: 'a malformed response: nobody waits for an answer to it' }));
    w.stdin.write(line({ id: 'b', method: 'tools/call', params: { name: 'post' } }));
    w.stdin.write(line({ id: 'c', method: 'ping' }));
    w.stdin.write(line({ method: 'notifications/initialized' })); // before initialize: does not count
    w.stdin.write(line({ id: 'd', method: 'tools/list' }));
    await w.tick();
    expect(w.out.map((o) => [(o as { id: unknown }).id, (o as { error: { code: number } }).error.code])).toEqual([
      [null, -32700],
      ['a', -32600],
      ['b', -32002],
      ['d', -32002],
    ]);
    expect(w.got.map((m) => (m as { id?: string }).id)).toEqual(['r', 'c', undefined]);
    w.stdin.write(line({ id: 'e', method: 'initialize', params: INIT }));
    w.stdin.write(line({ method: 'notifications/initialized' }));
    w.stdin.write(line({ id: 'f', method: 'tools/list' }));
    await w.tick();
    expect(w.got.map((m) => (m as { id?: string }).id).slice(3)).toEqual(['e', undefined, 'f']);
    expect(w.out).toHaveLength(4);
    for (const id of ['c', 'e', 'f']) await w.t.send({ jsonrpc: '2.0', id, result: {} });
    w.stdin.end();
    await w.tick();
    expect(w.closed()).toBe(true);
  });
});

describe('stdin ends with calls in progress', () => {
  const ready = async (w: ReturnType<typeof world>) => {
    await w.t.start();
    w.stdin.write(line({ id: 0, method: 'initialize', params: INIT }));
    w.stdin.write(line({ method: 'notifications/initialized' }));
    await w.tick();
    await w.t.send({ jsonrpc: '2.0', id: 0, result: {} });
  };

  it('answers them first, then closes (closing at once dropped the reply of a post that was stored)', async () => {
    const w = world(1000);
    await ready(w);
    w.stdin.write(line({ id: 1, method: 'tools/call', params: { name: 'post' } }));
    w.stdin.write(line({ id: 2, method: 'tools/call', params: { name: 'status' } }));
    w.stdin.end();
    await w.tick();
    expect(w.closed()).toBe(false);
    await w.t.send({ jsonrpc: '2.0', id: 2, result: { content: [] } });
    expect(w.closed()).toBe(false);
    await w.t.send({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'posted' }] } });
    await w.tick();
    expect(w.closed()).toBe(true);
    expect(w.out.map((o) => (o as { id: number }).id)).toEqual([0, 2, 1]);
  });

  it('reads a last line that has no line feed after it, and answers it before closing', async () => {
    const w = world(1000);
    await ready(w);
    w.stdin.end(line({ id: 3, method: 'tools/call', params: { name: 'post' } }).trimEnd());
    await w.tick();
    expect(w.got.map((m) => (m as { id?: number }).id).at(-1)).toBe(3);
    expect(w.closed()).toBe(false);
    await w.t.send({ jsonrpc: '2.0', id: 3, result: {} });
    expect(w.closed()).toBe(true);
  });

  it('a call the client cancelled is not waited for; one that never ends is not waited for past DRAIN_MS', async () => {
    const w = world(1000);
    await ready(w);
    w.stdin.write(line({ id: 4, method: 'tools/call', params: { name: 'post' } }));
    w.stdin.write(line({ method: 'notifications/cancelled', params: { requestId: 4 } }));
    w.stdin.end();
    await w.tick();
    expect(w.closed()).toBe(true);

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stuck = world(1000);
    await ready(stuck);
    stuck.stdin.write(line({ id: 5, method: 'tools/call', params: { name: 'post' } }));
    stuck.stdin.end();
    await vi.advanceTimersByTimeAsync(DRAIN_MS - 1);
    expect(stuck.closed()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(stuck.closed()).toBe(true);
    vi.useRealTimers();
  });
});
