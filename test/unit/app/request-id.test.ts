/** app/mcp/request-id.ts: the id of a JSON-RPC request too large to read, found as its bytes stream past. */
import { describe, expect, it } from 'vitest';
import { RequestIdScan } from '../../../src/app/mcp/request-id.js';

/** Scan `text` in pieces of `size` bytes (a chunk may end anywhere: inside a key, a string, an escape). */
const idOf = (text: string, size: number) => {
  const scan = new RequestIdScan();
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) scan.scan(bytes.subarray(i, i + size));
  return scan.id();
};

describe('RequestIdScan', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"id":9}}', 5],
    ['{"params":{"id":9,"s":"\\"},\\"id\\":7"},"id" : "a\\"b" }', 'a"b'],
    ['{"ids":3,"identity":4,"id":-2.5e3}', -2500],
    ['  {"id":"x","params":{"content":"cut sh', 'x'],
    ['{"method":"notifications/x"}', null],
    ['[{"id":1}]', null],
    ['not json at all {"id":1}', null],
    ['{"id":{"x":1}}', null],
    ['{"id":null}', null],
    ['{"id":true}', null],
    ['{"id":12', 12],
    [`{"params":{"content":"${'x'.repeat(5000)}"},"id":"after"}`, 'after'],
    [`{"id":"${'y'.repeat(300)}"}`, null],
  ])('%s → %j', (text, id) => {
    for (const size of [1, 2, 3, 7, 4096]) expect(idOf(text, size), `in pieces of ${size}`).toEqual(id);
  });
});
