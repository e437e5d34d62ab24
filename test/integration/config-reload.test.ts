/**
 * The config as a person lives with it (docs/protocol.md §2): found from any folder of the project, refused
 * where none is (nothing written that nothing would deliver), edited while the daemon runs — the live part
 * applied, the rest said to need a restart, an invalid file reported while the daemon keeps its last good
 * one — and `status`/`down` still working on what runs when config.json is broken. Real daemon, private tmux.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, CLI, Project, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
let outside: string | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
  if (outside) rmSync(outside, { recursive: true, force: true });
  outside = undefined;
});

const AGENTS = { claude1: { kind: 'generic', command: 'x' }, claude2: { kind: 'generic', command: 'x' } };
const DIRECTIONS = { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] };
const config = (extra: Record<string, unknown> = {}) => ({
  message_dir: './messages',
  agents: AGENTS,
  directions: DIRECTIONS,
  inbox: { max_bytes: 1048576, settle_ms: 300 },
  delivery: { enter_delay_ms: 20 },
  ...extra,
});
interface StatusJson {
  config: string | null;
  max_turns: number;
  daemon: { pid: number };
  running_config: { turns: Record<string, unknown>; file: Record<string, unknown> } | null;
}
const json = (s: string) => JSON.parse(s) as StatusJson;
const status = async (q: Project) => json((await q.cli(['status', '--json'])).stdout);
const msg = (from: string, to: string, content: string) => ({ sender: from, receiver: to, content });

async function running(extra: Record<string, unknown> = {}): Promise<Project> {
  p = new Project(config(extra));
  await p.recorder('claude1');
  await p.recorder('claude2');
  await p.startDaemon();
  return p;
}

describe('finding the config', () => {
  it('status from a subfolder of the project finds its config.json', async () => {
    p = new Project(config());
    const sub = join(p.dir, 'agents', 'claude1', 'src');
    mkdirSync(sub, { recursive: true });
    const r = await execa('node', [CLI, 'status', '--json'], { cwd: sub, env: p.env, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r.stdout).config).toBe(p.configFile);
  });

  it('post with no config anywhere above exits 2 in one line naming what to do, and writes nothing', async () => {
    p = new Project(config());
    outside = mkdtempSync(join(tmpdir(), 'baton-noconfig-'));
    const r = await execa('node', [CLI, 'post', '--as', 'claude1', 'hello'], {
      cwd: outside,
      env: p.env,
      reject: false,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`no config.json in ${outside} or any folder above it: "baton init" makes one`);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('config.json edited while the daemon runs', () => {
  it('max_turns lowered: applied live, logged as config_reloaded, the conversation ends at the new limit', async () => {
    const q = await running({ turns: { max_turns: 10 } });
    q.send('c1_to_c2', '1.json', msg('claude1', 'claude2', 'one'));
    await waitFor('msg 1 delivered', () => q.archive()[0]?.delivered_at);
    expect((await status(q)).max_turns).toBe(10);

    q.writeConfig(config({ turns: { max_turns: 2 } }));
    const reloaded = await waitFor('config_reloaded', () => q.events().find((e) => e.event === 'config_reloaded'));
    expect(reloaded).toMatchObject({ config: q.configFile, applied: ['turns.max_turns'], restart: [] });
    const s = await status(q);
    expect(s.max_turns).toBe(2);
    expect(s.running_config).toMatchObject({ turns: { max_turns: 2 }, file: { state: 'same' } });

    q.send('c2_to_c1', '2.json', msg('claude2', 'claude1', 'two'));
    await waitFor('finished', () => (q.state().finished as { reason: string } | undefined)?.reason === 'max_turns');
    expect(q.state().message_counter).toBe(2);
    q.send('c1_to_c2', '3.json', msg('claude1', 'claude2', 'three'));
    await waitFor('3.json held', () => q.events().some((e) => e.event === 'held' && e.file === '3.json'));
    expect(q.archive()).toHaveLength(2); // held: the conversation is over
  }, 60_000);

  it('status says what is true: max_turns counted from a resume, no turn clock once finished or paused, the policy that runs', async () => {
    const q = await running({ turns: { max_turns: 3 } });
    const text = async () => (await q.cli(['status'])).stdout;
    const line = async (key: string) => (await text()).split('\n').find((l) => l.startsWith(`${key} `))!;
    const report = async () => JSON.parse((await q.cli(['status', '--json'])).stdout) as Record<string, unknown>;
    const say = (n: number) => (n % 2 ? ['c1_to_c2', 'claude1', 'claude2'] : ['c2_to_c1', 'claude2', 'claude1']);
    const deliver = async (n: number) => {
      const [dir, from, to] = say(n) as [string, string, string];
      q.send(dir, `${n}.json`, msg(from, to, `message ${n}`));
      await waitFor(`msg ${n} delivered`, () => q.archive()[n - 1]?.delivered_at);
    };
    for (const n of [1, 2, 3]) await deliver(n);
    await waitFor('finished', () => (q.state().finished as { reason: string } | undefined)?.reason === 'max_turns');
    // Finished: no clock runs and no reply is awaited (it said "claude2 for 40 s … awaiting a reply to msg_0003").
    expect(await line('turn')).toBe('turn          claude2 (finished: no turn runs)');
    expect(await line('messages')).toBe('messages      3 of max 3 (last msg_0003)');
    expect((await report()).seconds_in_turn).toBeNull();

    expect((await q.cli(['resume'])).exitCode).toBe(0);
    expect(await line('turn')).toMatch(/^turn {10}claude2 for \d+ s$/);
    for (const n of [4, 5]) await deliver(n);
    // It said "messages 5 of max 3": max_turns counts again from the resume.
    expect(await line('messages')).toBe(
      'messages      5 (resumed at 3: 2 of max 3 since; last msg_0005, awaiting a reply to msg_0005)',
    );
    expect(await report()).toMatchObject({ turns_base: 3, max_turns: 3 });

    expect((await q.cli(['pause'])).exitCode).toBe(0);
    expect(await line('turn')).toBe('turn          claude2 (paused: its clock stands still)');
    expect((await report()).seconds_in_turn).toBeNull();

    // turns.policy edited while the daemon runs: it runs the old one until restarted; status said the file's.
    q.writeConfig(config({ turns: { max_turns: 3, policy: 'handoff' } }));
    expect(await line('policy')).toBe(
      'policy        alternate (the daemon runs it; config.json says handoff, which the daemon does not take while ' +
        'it runs: baton down, baton up)',
    );
    await waitFor('config_reloaded', () => q.events().find((e) => e.event === 'config_reloaded'));
    expect(await report()).toMatchObject({ policy: 'alternate', policy_in_file: 'handoff' });
  }, 60_000);

  it('an agent added: the daemon keeps going as it was, and says restart to apply (log, event, status)', async () => {
    const handoff = { turns: { policy: 'handoff' } }; // any number of agents, these two folders
    const q = await running(handoff);
    q.writeConfig(config({ ...handoff, agents: { ...AGENTS, claude3: { kind: 'generic', command: 'x' } } }));
    const reloaded = await waitFor('config_reloaded', () => q.events().find((e) => e.event === 'config_reloaded'));
    expect(reloaded.restart).toEqual(['agent order', 'agents.claude3']);
    const text = (await q.cli(['status'])).stdout;
    expect(text).toContain('! changed: restart to apply agent order, agents.claude3');
    expect((await status(q)).running_config?.file).toEqual({
      state: 'restart',
      keys: ['agent order', 'agents.claude3'],
    });
    // It still delivers, in turn, as before.
    q.send('c1_to_c2', '1.json', msg('claude1', 'claude2', 'still here'));
    await waitFor('delivered', () => q.archive()[0]?.delivered_at);
  }, 60_000);

  it('an invalid file: the daemon keeps its last good config and goes on; status names the error', async () => {
    const q = await running({ turns: { max_turns: 7 } });
    const pid = (await status(q)).daemon.pid;
    writeFileSync(q.configFile, '{ "turns": { "max_turns": 1 }, ');
    await waitFor('config_rejected', () => q.events().find((e) => e.event === 'config_rejected'));
    // Status reads the running conversation through the broken file: the error, and what runs.
    const r = await q.cli(['status']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').slice(0, 3)).toEqual([
      `config        ${q.configFile}: invalid config: not valid JSON: Expected double-quoted property name at line 1, column 32`,
      `daemon        running (pid ${pid}) with its last good config`,
      'sessions      -',
    ]);
    q.send('c1_to_c2', '1.json', msg('claude1', 'claude2', 'delivered anyway'));
    await waitFor('delivered', () => q.archive()[0]?.delivered_at);

    // A schema error is named by its key; then a good file again is taken.
    q.writeConfig(config({ turns: { max_turns: 'ten' } }));
    await waitFor('second rejection', () => q.events().filter((e) => e.event === 'config_rejected').length === 2);
    expect(q.events().filter((e) => e.event === 'config_rejected')[1]!.error).toMatch(/turns\.max_turns/);
    q.writeConfig(config({ turns: { max_turns: 5 } }));
    await waitFor('reloaded', () => q.events().find((e) => e.event === 'config_reloaded'));
    expect(await status(q)).toMatchObject({ max_turns: 5, running_config: { file: { state: 'same' } } });
  }, 60_000);
});

describe('a broken config.json and what runs', () => {
  it('down stops the daemon and the sessions up started; doctor fails naming the error', async () => {
    p = new Project(config());
    const up = await p.cli(['up', '--demo']);
    expect(up.exitCode, up.stderr).toBe(0);
    const pid = (await status(p)).daemon.pid;
    expect(alive(pid)).toBe(true);
    writeFileSync(p.configFile, '{ "agents": ');

    const doctor = await p.cli(['doctor']);
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout).toContain(`FAIL  config: ${p.configFile}: invalid config: not valid JSON`);
    expect(doctor.stdout).toContain(`ok    daemon: running (pid ${pid}) with its last good config`);

    const down = await p.cli(['down']);
    expect(down.exitCode, down.stderr).toBe(0);
    const said = down.stdout + down.stderr;
    expect(said).toContain('not valid JSON');
    expect(said).toMatch(
      /stopped session .*, its place in the machine's daemon \(pid \d+\); it had nothing else to serve and exited/,
    );
    expect(alive(pid)).toBe(false);
    const left = await p.tmux(['list-sessions', '-F', '#{session_name}']);
    expect(left.stdout.trim()).toBe('');
  }, 60_000);
});
