/**
 * A daemon killed (SIGKILL, through a failpoint in a child process: commit-child.mjs) between every two
 * durable steps of a turn step and its stamp, and recovery checked: every message in exactly one place,
 * IDs 1..N, the state agreeing with the archive, and an unfinished delivery reported as possibly typed
 * exactly when its turn step was committed.
 */
import { execa } from 'execa';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, waitFor } from '../helpers/harness.js';
import { type Contract, me, quiet } from './world.js';

const CHILD = join(ROOT, 'test', 'contract', 'commit-child.mjs');

export function crashContract(c: Contract): void {
  describe('killed mid-step', () => {
    // A daemon killed between every two durable steps of a turn step and its stamp: what recovery finds.
    const points = [
      { at: 'claimed', archived: 0, state: 0, unfinished: null },
      ...(c.traits.atomicStep ? [{ at: 'archived', archived: 0, state: 0, unfinished: null } as const] : []),
      { at: 'state_saved', archived: 1, state: 1, unfinished: { typed: true } },
      { at: 'stamped', archived: 1, state: 1, unfinished: null },
    ] as const;
    for (const p of points) {
      it(`killed right after "${p.at}": nothing lost, IDs 1..N, the state agrees, an unfinished delivery is flagged only if it may have been typed`, async () => {
        const { config, bus } = await c.setup();
        await bus.post(c.dir(config, 'c1_to_c2'), { content: `killed after ${p.at}` });
        const child = await execa('node', [CHILD, c.world().configFile], {
          env: { ...c.world().env, BATON_FAILPOINT: p.at },
          reject: false,
        });
        expect(child.signal, `${child.stdout}\n${child.stderr}`).toBe('SIGKILL');
        // Seen dead as soon as the bus can prove it: on PostgreSQL once the server has noticed the killed
        // daemon's connection close (milliseconds; no look at a local pid, which a cloned machine shares).
        await waitFor('the killed daemon seen gone', async () => !(await bus.daemon()).running, 2000).catch(() => {});
        expect((await bus.daemon()).running).toBe(false);
        // A new daemon takes over the dead one's lease and recovers.
        const d = bus.delivery(quiet);
        const lease = await d.lease(me(), () => {});
        c.keep(d, lease);
        const r = await d.recover();
        const view = await bus.archiveView();
        const waiting = Object.values(await bus.waitingCounts()).reduce((a, b) => a + b, 0);
        expect(view.n + waiting, 'the message is in exactly one place').toBe(1);
        expect(view.n).toBe(p.archived);
        expect(view.gaps).toBeNull();
        expect(r.state.message_counter).toBe(view.n); // recovery brings a lagging state up to the archive
        expect(r.unfinished ? { typed: r.unfinished.typed } : null).toEqual(p.unfinished);
        if (view.n) expect(r.state).toMatchObject({ current_turn: 'claude2', last_message_id: 'msg_0001' });
        if (!view.n) expect((await c.ready(d)).map((x) => x.message?.content)).toEqual([`killed after ${p.at}`]);
      });
    }
  });
}
