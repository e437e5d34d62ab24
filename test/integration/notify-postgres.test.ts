/**
 * Notifications on the PostgreSQL bus (docs/protocol.md §12): two machines with the same `notify`, one
 * conversation; each happening is told once, by the machine whose daemon saw it, not by every machine.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readRecorder, waitFor } from '../helpers/harness.js';
import { machinesConfig, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
const closers: Array<() => void> = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

describe('notify across machines', () => {
  it('two machines, one notify list: each finished is told once, by one machine', async () => {
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
    closers.push(() => {
      receiver.closeAllConnections();
      receiver.close();
    });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const conv = `notify-${process.pid}`;
    const config = machinesConfig(server.url, conv, {
      turns: { max_turns: 2 },
      notify: [{ webhook: url, cooldown_s: 0 }],
    });
    const [a, b] = [machine('alpha', config), machine('beta', config)];
    const logA = await a.recorder('claude1');
    const logB = await b.recorder('claude2');
    await a.daemon();
    await b.daemon();
    a.send('c1_to_c2', '1.json', { content: 'from alpha' });
    await waitFor('typed on beta', () => readRecorder(logB).pastes.length > 0, 60_000);
    b.send('c2_to_c1', '2.json', { content: 'from beta' });
    // Both machines' panes are told it finished: both daemons have seen the end by then.
    const told = (log: string, n: number) =>
      readRecorder(log).typed.filter((t) => t.includes('the conversation has finished')).length >= n;
    await waitFor('both told', () => told(logA, 1) && told(logB, 1), 60_000);
    // A second ending, asked for on beta.
    expect((await a.cli(['resume'])).exitCode).toBe(0);
    await waitFor('resumed', async () => !(await a.status())?.finished, 30_000);
    expect((await b.cli(['end', '--reason', 'enough'])).exitCode).toBe(0);
    await waitFor('both told again', () => told(logA, 2) && told(logB, 2), 60_000);
    await waitFor('two notifications', () => got.filter((e) => e.event === 'finished').length >= 2, 30_000);
    // Anything a second machine would have sent for the first ending came before the second ending's.
    const finished = got.filter((e) => e.event === 'finished');
    expect(finished.map((e) => (e.details as { reason: string }).reason)).toEqual(['max_turns', 'ended']);
    expect(finished.every((e) => e.conversation === conv)).toBe(true);
    console.log(`finished told by: ${finished.map((e) => e.host).join(', ')}`);
  });
});
