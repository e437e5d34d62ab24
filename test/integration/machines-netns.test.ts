/**
 * A machine cut off and back: beta's daemon runs in its own network namespace, reaching
 * PostgreSQL over a veth pair on a private /30 of its own. Mid-conversation the link goes down for longer
 * than the lease's stale time, then comes back; docs/protocol.md §10's invariants must hold. The namespace and the
 * link are removed afterwards, whatever happened. Needs root and `ip netns` (npm test runs as root in CI).
 */
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecorder, scaleTime, waitFor } from '../helpers/harness.js';
import { countArchived, invariants, machinesConfig, query, useMachines } from '../helpers/machines.js';
import { startPostgres, type Postgres } from '../helpers/postgres.js';

const ns = `baton-${process.pid}`;
const hostIf = `bt${process.pid % 100000}h`;
const nsIf = `bt${process.pid % 100000}n`;
const net = `10.231.${process.pid % 250}`;
const ip = (...args: string[]) => execa('ip', args);

let server: Postgres;
const machine = useMachines();
beforeAll(async () => {
  if (process.getuid?.() !== 0) return;
  await ip('netns', 'add', ns);
  await ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf);
  await ip('link', 'set', nsIf, 'netns', ns);
  await ip('addr', 'add', `${net}.1/30`, 'dev', hostIf);
  await ip('link', 'set', hostIf, 'up');
  await ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${net}.2/30`, 'dev', nsIf);
  await ip('netns', 'exec', ns, 'ip', 'link', 'set', nsIf, 'up');
  await ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  server = await startPostgres({ listen: `127.0.0.1,${net}.1`, trust: `${net}.0/30` });
}, 120_000);
afterAll(async () => {
  await server?.destroy();
  if (process.getuid?.() !== 0) return;
  await ip('link', 'del', hostIf).catch(() => {});
  await ip('netns', 'del', ns).catch(() => {});
});

// Network namespaces need root; CI runs the tests as root (elsewhere this one says why it did not run).
describe.skipIf(process.getuid?.() !== 0)('a machine in its own network namespace (root only)', () => {
  it('cut off mid-conversation past its lease, then back: it waits, nothing is lost or typed twice unflagged', async () => {
    const conv = `netns-${process.pid}`;
    const config = machinesConfig(`postgres://postgres@${net}.1:${server.port}/postgres`, conv);
    const a = machine('alpha', config);
    const b = machine('beta', config);
    for (const m of [a, b]) scaleTime(m, 0.25);
    const logs = {
      claude1: await a.recorder('claude1', { reply: true }),
      claude2: await b.recorder('claude2', { reply: true }),
    };
    await a.daemon();
    const beta = (await b.daemon(['ip', 'netns', 'exec', ns])).proc;
    // The namespace really is beta's only way to the database.
    const probe = await execa(
      'ip',
      [
        'netns',
        'exec',
        ns,
        'node',
        '-e',
        `require('net').connect(${server.port}, '127.0.0.1').on('error', () => process.exit(7)).on('connect', () => process.exit(0))`,
      ],
      { reject: false },
    );
    expect(probe.exitCode).toBe(7);
    a.send('c1_to_c2', 'opening.json', { content: 'ping' });
    const count = () => countArchived(server.url, conv);
    await waitFor('6 messages', async () => (await count()) >= 6, 60_000, 10);

    await ip('link', 'set', hostIf, 'down');
    const cutAt = await count();
    const typedBefore = readRecorder(logs.claude2).typed.length;
    // Past its lease (5 s, here scaled): alpha sees beta's heartbeat stale.
    await waitFor('beta stale', async () => (await a.status())?.hosts?.beta?.alive === false, 30_000);
    // Cut off: the conversation waits for beta (a message to claude2 may be committed, none more typed).
    expect(await count()).toBeLessThanOrEqual(cutAt + 1);
    expect(readRecorder(logs.claude2).typed.length).toBeLessThanOrEqual(typedBefore + 1);
    expect(beta.exitCode).toBeNull();
    await ip('link', 'set', hostIf, 'up');

    await waitFor('6 more after the link is back', async () => (await count()) >= cutAt + 6, 90_000, 50);
    await waitFor(
      'the last one stamped',
      async () =>
        (
          await query<{ delivered: boolean }>(
            server.url,
            'SELECT delivered FROM baton.archive WHERE conversation = $1 AND NOT person ORDER BY counter DESC LIMIT 1',
            [conv],
          )
        )[0]?.delivered,
      30_000,
    );
    for (const m of [a, b]) for (const d of m.procs) d.kill('SIGTERM');
    for (const m of [a, b]) for (const d of m.procs) expect((await d).exitCode).toBe(0);
    const r = await invariants(server.url, conv, logs, { opening: 'ping', machines: [a, b] });
    expect(r.n).toBeGreaterThanOrEqual(12);
  }, 240_000);
});
