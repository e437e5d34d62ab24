/**
 * One daemon per machine serving many conversations (`baton daemon A B C`, issue 15's scale): each
 * conversation keeps its own lease, turn and panes; the machine's one process holds every lease. Real
 * PostgreSQL, two "machines" (each its own tmux server and BATON_HOST), three conversations at once.
 */
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI, RECORDER, waitFor } from '../helpers/harness.js';
import { diagnose, invariants, machinesConfig, query, useMachines, type Machine } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();

/** Conversation `conv`'s config on machine `m`, in its own folder there; its agents' sessions are named after it. */
function conversationOn(m: Machine, conv: string, k: number): string {
  const dir = join(m.dir, conv);
  mkdirSync(dir, { recursive: true });
  const config = machinesConfig(server.url, conv, { turns: { max_turns: 6 } }) as { agents: Record<string, Record<string, unknown>> };
  for (const a of ['claude1', 'claude2']) config.agents[a]!.session = `k${k}-${a}`;
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return join(dir, 'config.json');
}

/** A recorder that answers through `baton post` as `agent` of the conversation in `configFile`. */
async function recorder(m: Machine, k: number, agent: string, configFile: string): Promise<string> {
  const log = join(m.dir, `k${k}-${agent}.log`);
  const cmd = `exec node ${JSON.stringify(RECORDER)} ${JSON.stringify(log)} --reply`;
  const r = await m.tmux(['new-session', '-d', '-s', `k${k}-${agent}`, '-x', '200', '-y', '50', '-e', `BATON_AGENT=${agent}`, '-e', `BATON_CONFIG=${configFile}`, cmd]);
  expect(r.exitCode, r.stderr).toBe(0);
  await waitFor(`recorder k${k}-${agent}`, async () => (await m.tmux(['capture-pane', '-p', '-t', `=k${k}-${agent}:`])).stdout.includes('recorder ready'));
  return log;
}

describe('one daemon per machine for many conversations', () => {
  it('serves three conversations across two machines at once, each in strict turns, from one process per machine', async () => {
    const convs = [0, 1, 2].map((k) => `shared-${process.pid}-${k}`);
    const base = machinesConfig(server.url, convs[0]!);
    const [a, b] = [machine('alpha', base), machine('beta', base)];
    const files = convs.map((conv, k) => ({ alpha: conversationOn(a, conv, k), beta: conversationOn(b, conv, k) }));
    const logs = await Promise.all(files.map(async (f, k) => ({ claude1: await recorder(a, k, 'claude1', f.alpha), claude2: await recorder(b, k, 'claude2', f.beta) })));

    const daemons: Record<string, ResultPromise> = {};
    for (const [m, host] of [[a, 'alpha'], [b, 'beta']] as const) {
      const p = execa('node', [CLI, 'daemon', ...files.map((f) => f[host])], { env: m.env, reject: false, cwd: m.dir, all: true });
      m.procs.push(p);
      p.all?.on('data', (d: Buffer) => (m.output += d.toString()));
      daemons[host] = p;
    }
    // Every (conversation, machine) lease is held, each machine's by its one process.
    const leases = () => query<{ conversation: string; host: string; pid: number }>(server.url, `SELECT conversation, host, (holder->>'pid')::int AS pid FROM baton.leases WHERE conversation = ANY($1) AND NOT released`, [convs]);
    await waitFor('six leases held', async () => (await leases().catch(() => [])).length === 6, 30_000); // (no schema yet at first)
    for (const l of await leases()) expect(l.pid, `${l.conversation} on ${l.host}`).toBe(daemons[l.host]!.pid);

    // Each conversation opens on alpha; the recorders answer until max_turns (6) ends it.
    files.forEach((f, k) => {
      const dir = join(f.alpha, '..', 'messages', 'c1_to_c2');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, '.opening.tmp'), JSON.stringify({ content: `opening ${k}` }));
      renameSync(join(dir, '.opening.tmp'), join(dir, 'opening.json'));
    });
    const finished = async (conv: string) => (await query<{ f: unknown }>(server.url, `SELECT state->'finished' AS f FROM baton.conversations WHERE name = $1`, [conv]))[0]?.f;
    for (const conv of convs) {
      await waitFor(`${conv} finished`, async () => Boolean(await finished(conv)), 60_000).catch(async (err: Error) => {
        const folder = join(a.dir, conv, 'messages', 'c1_to_c2');
        throw new Error(`${err.message}\n${folder}: ${JSON.stringify(readdirSync(folder, { recursive: true }))}\nevents: ${JSON.stringify(await query(server.url, 'SELECT body FROM baton.events WHERE conversation = $1', [conv]))}\nrejected: ${JSON.stringify(await query(server.url, 'SELECT * FROM baton.rejected WHERE conversation = $1', [conv]))}\nrelayed: ${JSON.stringify(await query(server.url, 'SELECT * FROM baton.relayed WHERE conversation = $1', [conv]))}\n${await diagnose(server.url, conv, [a, b], {})}`);
      });
    }
    for (const [k, conv] of convs.entries()) {
      const r = await invariants(server.url, conv, logs[k]!, `opening ${k}`);
      expect(r.n, conv).toBe(6);
      expect(r.redelivered, conv).toBe(0);
    }

    // SIGTERM stops every conversation's daemon cleanly: exit 0, every lease released.
    for (const p of Object.values(daemons)) p.kill('SIGTERM');
    for (const [host, p] of Object.entries(daemons)) expect((await p).exitCode, `${host}: ${String((await p).all).slice(-2000)}`).toBe(0);
    expect(await leases()).toEqual([]);
  }, 120_000);
});
