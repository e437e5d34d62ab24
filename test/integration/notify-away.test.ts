/**
 * A database away for long is told (docs/protocol.md §12): `baton daemon`'s Service, in this process, for a
 * PostgreSQL conversation whose server refuses every connection, with the threshold shortened from 60 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { Service } from '../../src/daemon/serve.js';
import { silent } from '../../src/lib/log.js';
import { waitFor } from '../helpers/harness.js';
import { freePort } from '../helpers/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-away-'));
// Nothing here reaches tmux (the lease is never taken), but never the user's server either way.
process.env.TMUX_TMPDIR = dir;
process.env.TMUX = '';
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the database away', () => {
  it('is told as an error once it has been away for the threshold, while the daemon keeps trying', async () => {
    const got: Array<Record<string, unknown>> = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d.toString('utf8');
      });
      req.on('end', () => {
        got.push(JSON.parse(body) as Record<string, unknown>);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = await freePort(); // nothing listens there: every connection is refused
    const config = parseConfig(
      {
        agents: { a: { kind: 'generic', command: 'x' }, b: { kind: 'generic', command: 'x' } },
        bus: { kind: 'postgres', url: `postgres://nobody@127.0.0.1:${port}/none`, conversation: 'away' },
        notify: [{ webhook: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` }],
      },
      join(dir, 'config.json'),
      dir,
    );
    const service = new Service([config], silent, undefined, 3000);
    const t0 = performance.now();
    const running = service.run();
    try {
      await waitFor('told', () => got.length > 0, 20_000);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(3000);
      expect(got[0]).toMatchObject({ event: 'error', error: 'database_away', conversation: 'away' });
      expect(got[0]!.message).toMatch(/database/);
    } finally {
      service.stop('test');
      await running;
      receiver.closeAllConnections();
      receiver.close();
    }
  });
});
