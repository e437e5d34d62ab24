/**
 * `baton status` across machines (PostgreSQL bus) says why a file waits by the turn rules first: a file out
 * of turn is out of turn on every machine — status once said `(claude1: runs on alpha)` for it — and only
 * a file in turn waits for its receiver's machine, which status names with whether a daemon runs there.
 */
import { describe, expect, it } from 'vitest';
import { machinesConfig, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();

type Waiting = Record<string, Record<string, unknown>>;

describe('why a file waits, across machines', () => {
  it('out of turn says whose turn it is; in turn names the receiver’s machine and whether its daemon runs', async () => {
    const config = machinesConfig(server.url, `status-${process.pid}`);
    const [a, b] = [machine('alpha', config), machine('beta', config)];
    const waiting = async (m: typeof a) => {
      const json = JSON.parse((await m.cli(['status', '--json'])).stdout) as { waiting: Waiting };
      const text = (await m.cli(['status'])).stdout.split('\n').find((l) => l.startsWith('waiting'));
      return { json: json.waiting, text };
    };
    // claude1 (alpha) holds the first turn; claude2 (beta) writes out of turn.
    expect((await b.cli(['post', '--as', 'claude2', 'too early'])).exitCode).toBe(0);
    const early = await waiting(b);
    expect(early.json).toEqual({
      c2_to_c1: { count: 1, reason: 'out_of_turn', turn: 'claude1', text: "it is claude1's turn, not claude2's" },
    });
    expect(early.text).not.toContain('runs on');

    expect((await a.cli(['post', '--as', 'claude1', 'in turn'])).exitCode).toBe(0);
    const inTurn = await waiting(a);
    expect(inTurn.json.c1_to_c2).toEqual({
      count: 1,
      reason: 'other_machine',
      receiver: 'claude2',
      host: 'beta',
      daemon: false,
      text: 'claude2 runs on beta, where no daemon is running ("baton up" there starts it)',
    });
  }, 60_000);
});
