/**
 * One attempt to each kind of sink (daemon/notify/send.ts) against receivers this test runs on 127.0.0.1 and
 * commands in a temp folder: every attempt ends within its timeout_s, whatever the other side does.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotifySinkConfig } from '../../src/config/config.js';
import { testPayload } from '../../src/core/notify/payload.js';
import { attempt } from '../../src/daemon/notify/send.js';
import { pidAlive } from '../../src/lib/process.js';
import { waitFor } from '../helpers/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-notify-'));
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    if (req.url === '/hang') return;
    if (req.url === '/redirect') return res.writeHead(302, { location: '/ok' }).end();
    res.writeHead(req.url === '/missing' ? 404 : 200).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const sink = (s: Partial<NotifySinkConfig>): NotifySinkConfig => ({
  events: ['finished'],
  cooldown_s: 0,
  timeout_s: 1,
  ...s,
});
const p = testPayload({ conversation: 'c', host: 'h', url: null }, 0);
const send = (s: Partial<NotifySinkConfig>) => attempt(sink(s), p, { cwd: dir });

describe('one attempt', () => {
  it('webhook: 2xx sent; 404 final; a redirect is not followed; no answer gives up at timeout_s, to be retried', async () => {
    expect(await send({ webhook: `${base}/ok` })).toEqual({ kind: 'sent', status: 200 });
    expect(await send({ webhook: `${base}/missing` })).toEqual({ kind: 'failed', error: 'HTTP 404', retry: false });
    expect(await send({ webhook: `${base}/redirect` })).toMatchObject({
      kind: 'failed',
      error: 'HTTP 302',
      retry: false,
    });
    const t0 = performance.now();
    expect(await send({ webhook: `${base}/hang` })).toEqual({
      kind: 'failed',
      error: 'no answer within 1 s',
      retry: true,
    });
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  it('command: the event on stdin in the project folder; exit status and stderr said; killed with what it started at timeout_s', async () => {
    expect(await send({ command: ['sh', '-c', 'cat > got.json'] })).toEqual({ kind: 'sent' });
    expect(JSON.parse(readFileSync(join(dir, 'got.json'), 'utf8'))).toMatchObject({ test: true, conversation: 'c' });
    expect(await send({ command: ['sh', '-c', 'echo "no such channel" >&2; exit 3'] })).toEqual({
      kind: 'failed',
      error: 'sh: exit status 3 (no such channel)',
      retry: false,
    });
    expect(await send({ command: ['no-such-command-baton'] })).toEqual({
      kind: 'failed',
      error: 'cannot run no-such-command-baton: ENOENT',
      retry: false,
    });
    const t0 = performance.now();
    const hung = await send({ command: ['sh', '-c', 'sleep 60 & echo $! > child.pid; wait'] });
    expect(hung).toMatchObject({ kind: 'failed', error: 'sh: killed after 1 s' });
    expect(performance.now() - t0).toBeLessThan(3000);
    const child = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
    // Its process group went with it: gone, or a zombie its new parent has not reaped yet.
    await waitFor("the command's child killed", () => !pidAlive(child) || zombie(child), 5000);
  });
});

/** A process that has exited and waits to be reaped (`Z` in /proc/PID/stat): kill(pid, 0) still finds it. */
function zombie(pid: number): boolean {
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // gone meanwhile
  }
}
