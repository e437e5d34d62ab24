/**
 * One daemon per machine serving many conversations (`baton daemon A B C`; src/daemon/serve.ts says why): each
 * conversation keeps its own lease, turn and panes; the machine's one process holds every lease. Real
 * PostgreSQL, two "machines" (each its own tmux server and BATON_HOST), three conversations at once.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { waitFor, writeMessage } from '../helpers/harness.js';
import { diagnose, invariants, machinesConfig, query, useMachines, type Machine } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();

/** Conversation `conv`'s config on machine `m`, in its own folder there; its agents' sessions are named after it. */
function conversationOn(m: Machine, conv: string, k: number): string {
  const dir = join(m.dir, conv);
  mkdirSync(dir, { recursive: true });
  const config = machinesConfig(server.url, conv, { turns: { max_turns: 6 } }) as {
    agents: Record<string, Record<string, unknown>>;
  };
  for (const a of ['claude1', 'claude2']) config.agents[a]!.session = `k${k}-${a}`;
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return join(dir, 'config.json');
}

describe('one daemon per machine for many conversations', () => {
  it('serves three conversations across two machines at once, each in strict turns, from one process per machine', async () => {
    const convs = [0, 1, 2].map((k) => `shared-${process.pid}-${k}`);
    const base = machinesConfig(server.url, convs[0]!);
    const [a, b] = [machine('alpha', base), machine('beta', base)];
    const files = convs.map((conv, k) => ({ alpha: conversationOn(a, conv, k), beta: conversationOn(b, conv, k) }));
    // Each recorder answers through `baton post` as its agent of its own conversation.
    const logs = await Promise.all(
      files.map(async (f, k) => ({
        claude1: await a.recorder(`k${k}-claude1`, { reply: true, as: 'claude1', config: f.alpha }),
        claude2: await b.recorder(`k${k}-claude2`, { reply: true, as: 'claude2', config: f.beta }),
      })),
    );

    // One process per machine for all three conversations.
    const daemons: Record<string, ResultPromise> = {};
    for (const [m, host] of [
      [a, 'alpha'],
      [b, 'beta'],
    ] as const)
      daemons[host] = (
        await m.daemon(
          [],
          files.map((f) => f[host]),
        )
      ).proc;
    // Every (conversation, machine) lease is held, each machine's by its one process.
    const leases = () =>
      query<{ conversation: string; host: string; pid: number }>(
        server.url,
        `SELECT conversation, host, (holder->>'pid')::int AS pid FROM baton.leases WHERE conversation = ANY($1) AND NOT released`,
        [convs],
      );
    await waitFor('six leases held', async () => (await leases().catch(() => [])).length === 6, 30_000); // (no schema yet at first)
    for (const l of await leases()) expect(l.pid, `${l.conversation} on ${l.host}`).toBe(daemons[l.host]!.pid);

    // Each conversation opens on alpha; the recorders answer until max_turns (6) ends it.
    for (const [k, f] of files.entries())
      writeMessage(join(f.alpha, '..', 'messages', 'c1_to_c2'), 'opening.json', { content: `opening ${k}` });
    const finished = async (conv: string) =>
      (
        await query<{ f: unknown }>(
          server.url,
          `SELECT state->'finished' AS f FROM baton.conversations WHERE name = $1`,
          [conv],
        )
      )[0]?.f;
    for (const [k, conv] of convs.entries()) {
      await waitFor(`${conv} finished`, async () => Boolean(await finished(conv)), 60_000).catch(async (err: Error) => {
        const folder = join(a.dir, conv, 'messages', 'c1_to_c2');
        throw new Error(
          `${err.message}\n${folder}: ${JSON.stringify(readdirSync(folder, { recursive: true }))}\n${await diagnose(server.url, conv, [a, b], logs[k]!)}`,
        );
      });
    }
    for (const [k, conv] of convs.entries()) {
      // Their daemons still run: every reply is in the database.
      const r = await invariants(server.url, conv, logs[k]!, { opening: `opening ${k}`, machines: [] });
      expect(r.n, conv).toBe(6);
      expect(r.redelivered, conv).toBe(0);
    }

    // SIGTERM stops every conversation's daemon cleanly: exit 0, every lease released.
    for (const p of Object.values(daemons)) p.kill('SIGTERM');
    for (const [host, p] of Object.entries(daemons))
      expect((await p).exitCode, `${host}: ${String((await p).all).slice(-2000)}`).toBe(0);
    expect(await leases()).toEqual([]);
  }, 120_000);
});
