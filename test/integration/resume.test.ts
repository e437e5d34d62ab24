/**
 * Surviving a restart with the agents' memory (docs/protocol.md §12), against a real tmux server and
 * stand-in agents: `baton up` on a conversation that was running starts each client with its own resume
 * (command lines per kind), or new when its client no longer has the session (said); `--fresh-agents`
 * starts them new; and the turn holder in a new pane — after `down` and `up`, or a pane killed and started
 * again by `up` — is told what it owes: the message again, flagged, or a reminder.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, readRecorder, RECORDER, ROOT, waitFor } from '../helpers/harness.js';

const FAKE_CLAUDE = join(ROOT, 'test', 'fixtures', 'fake-claude.mjs');
const ID = {
  c: '662dd966-c06b-4056-9cde-094d262dfa46',
  x: '01a22176-4893-7cf1-bd54-88064e1ca035',
  g: 'a14b8306-2881-433a-a702-fafef439e9d2',
};
const FAST = { BATON_RESUME_WAIT_MS: '3000' };

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

/** A program named after a kind (baton adds its resume only to the kind's own program) that runs the stand-in. */
function standIn(project: Project, kind: string, flags = ''): string {
  const bin = join(project.dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const file = join(bin, kind);
  const log = join(project.dir, `${kind}.log`);
  const argv = join(project.dir, `${kind}.argv`);
  writeFileSync(
    file,
    `#!/bin/sh\nexec node ${JSON.stringify(FAKE_CLAUDE)} ${JSON.stringify(log)} --argv ${JSON.stringify(argv)} ${flags} "$@"\n`,
    {
      mode: 0o755,
    },
  );
  return file;
}

const argvOf = (project: Project, kind: string): string[][] =>
  existsSync(join(project.dir, `${kind}.argv`))
    ? readFileSync(join(project.dir, `${kind}.argv`), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as string[])
    : [];

/** A conversation's state with its agents' sessions, as the daemon keeps them from their hooks. */
function seedState(project: Project, sessions: Record<string, unknown>): void {
  mkdirSync(project.messages, { recursive: true });
  writeFileSync(
    project.path('state.json'),
    JSON.stringify({ current_turn: 'c', last_message_id: null, message_counter: 0, pending_reply_to: null, sessions }),
  );
}

describe("baton up resumes each client's session", () => {
  it('by its own command line per kind; a session its file is gone from, or its client refuses, starts new and says so', async () => {
    p = new Project();
    const cwd = (n: string) => join(p!.dir, 'agents', n);
    p.writeConfig({
      message_dir: './messages',
      agents: {
        c: { kind: 'claude', command: standIn(p, 'claude') },
        x: { kind: 'codex', command: `${standIn(p, 'codex')} --dangerously-bypass-approvals-and-sandbox` },
        g: { kind: 'gemini', command: `${standIn(p, 'gemini', '--refuse-resume')} --yolo` },
      },
      turns: { policy: 'round_robin' },
    });
    for (const n of ['c', 'x', 'g']) mkdirSync(cwd(n), { recursive: true });
    seedState(p, {
      c: { id: ID.c, kind: 'claude', cwd: cwd('c'), at: 'T' },
      x: { id: ID.x, kind: 'codex', cwd: cwd('x'), at: 'T', transcript: join(p.dir, 'codex-rollout.jsonl') },
      g: { id: ID.g, kind: 'gemini', cwd: cwd('g'), at: 'T' },
    });
    writeFileSync(join(p.dir, 'codex-rollout.jsonl'), '');
    const up = await p.cli(['up'], { env: FAST });
    const said = up.stdout + up.stderr;
    expect(up.exitCode, said).toBe(0);
    // Claude Code: --resume ID last; Codex: baton's -c options, then the resume subcommand; Gemini: --resume ID.
    expect(argvOf(p, 'claude')[0]!.slice(-2)).toEqual(['--resume', ID.c]);
    const codex = argvOf(p, 'codex')[0]!;
    expect(codex.slice(-2)).toEqual(['resume', ID.x]);
    expect(codex.indexOf('-c')).toBeGreaterThan(0);
    expect(codex.indexOf('-c')).toBeLessThan(codex.indexOf('resume'));
    // Gemini's client refused the session (exit 1): started again, new, and said.
    expect(argvOf(p, 'gemini')[0]!.slice(-2)).toEqual(['--resume', ID.g]);
    await waitFor('gemini started new', () => argvOf(p!, 'gemini').length === 2);
    expect(argvOf(p, 'gemini')[1]).not.toContain('--resume');
    // (What it printed is not always on its dead pane: tmux may not have drawn it before the exit.)
    expect(said).toContain(`g: its client could not resume session ${ID.g} (it exited`);
    const dead = (await p.tmux(['display-message', '-p', '-t', '=g:', '#{pane_dead} #{@baton_start}'])).stdout.trim();
    expect(dead).toBe('0 fresh');
    expect((await p.tmux(['display-message', '-p', '-t', '=c:', '#{@baton_start}'])).stdout.trim()).toBe('resumed');
    // Gemini CLI's session cleanup is off in its folder, so it can never delete the conversation.
    const settings = JSON.parse(readFileSync(join(cwd('g'), '.gemini', 'settings.json'), 'utf8'));
    expect(settings.general.sessionRetention.enabled).toBe(false);
  });

  it('a session whose file is gone starts new before anything runs; --fresh-agents starts every one new', async () => {
    p = new Project();
    const cwd = join(p.dir, 'agents', 'c');
    p.writeConfig({
      message_dir: './messages',
      agents: {
        c: { kind: 'claude', command: standIn(p, 'claude'), env: { CLAUDE_CONFIG_DIR: join(p.dir, 'cc') } },
        d: { kind: 'generic', command: 'cat' },
      },
    });
    mkdirSync(cwd, { recursive: true });
    const transcript = join(p.dir, 'cc', 'projects', 'x', `${ID.c}.jsonl`);
    seedState(p, { c: { id: ID.c, kind: 'claude', cwd, at: 'T', transcript } });
    const up = await p.cli(['up'], { env: FAST });
    expect(up.exitCode).toBe(0);
    expect(up.stdout + up.stderr).toContain(
      `c: started new: its client no longer has session ${ID.c} (its file ${transcript} is gone)`,
    );
    expect(argvOf(p, 'claude')[0]).not.toContain('--resume');
    await p.cli(['down']);
    mkdirSync(join(p.dir, 'cc', 'projects', 'x'), { recursive: true });
    writeFileSync(transcript, '');
    const again = await p.cli(['up', '--fresh-agents'], { env: FAST });
    expect(again.stdout + again.stderr).toContain(`c: started new: --fresh-agents: its session ${ID.c} is not resumed`);
    expect(argvOf(p, 'claude')[1]).not.toContain('--resume');
  });
});

describe('the turn holder in a new pane is told what it owes', () => {
  it('down and up with agents that cannot resume: the new pane gets the message again, flagged', async () => {
    p = new Project();
    const log = (n: string) => join(p!.dir, `${n}.log`);
    p.writeConfig({
      message_dir: './messages',
      agents: {
        claude1: { kind: 'generic', command: `node ${JSON.stringify(RECORDER)} ${JSON.stringify(log('claude1'))}` },
        claude2: { kind: 'generic', command: `node ${JSON.stringify(RECORDER)} ${JSON.stringify(log('claude2'))}` },
      },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      inbox: { max_bytes: 1048576, settle_ms: 300 },
      delivery: { enter_delay_ms: 20 },
    });
    expect((await p.cli(['up'])).exitCode).toBe(0);
    await waitFor('claude2 up', () => existsSync(log('claude2')));
    expect((await p.cli(['post', '--as', 'claude1', 'the first message'])).exitCode).toBe(0);
    await waitFor('msg_0001 delivered', () => p!.archive()[0]?.delivered_at, 20_000);
    await waitFor('claude2 read it', () => readRecorder(log('claude2')).pastes.length === 1);
    expect((await p.cli(['down'])).exitCode).toBe(0);
    const up = await p.cli(['up']);
    expect(up.stdout + up.stderr).toContain('claude2 has the turn and owes a reply to msg_0001');
    await waitFor('msg_0001 again', () => readRecorder(log('claude2')).pastes.length === 2, 20_000);
    const [first, again] = readRecorder(log('claude2')).pastes;
    expect(first).toMatch(/^\[baton\] msg_0001 from claude1 \(reply to -\)|^\[baton\] msg_0001 from claude1/);
    expect(again).toMatch(/^\[baton\] msg_0001 from claude1.*\(redelivered\)/);
    await waitFor('told', () => p!.events().some((e) => e.event === 'restarted'), 10_000);
    expect(p.events().filter((e) => e.event === 'restarted')).toEqual([
      expect.objectContaining({ agent: 'claude2', id: 'msg_0001', told: 'redeliver' }),
    ]);
    // Told once: a daemon killed and started again finds the record naming the pane it told.
    const pid = (JSON.parse((await p.cli(['status', '--json'])).stdout) as { daemon: { pid: number } }).daemon.pid;
    process.kill(pid, 'SIGKILL');
    expect((await p.cli(['up'])).exitCode).toBe(0);
    expect((await p.cli(['post', '--as', 'claude2', 'the answer'])).exitCode).toBe(0);
    await waitFor('msg_0002 delivered', () => p!.archive()[1]?.delivered_at, 20_000);
    expect(p.events().filter((e) => e.event === 'restarted')).toHaveLength(1);
    expect(readRecorder(log('claude2')).pastes).toHaveLength(2);
  });

  it('a pane killed and started again by up, its session resumed: a reminder when its model got the message, the message when it did not', async () => {
    p = new Project();
    const cc = (n: string) => ({ CLAUDE_CONFIG_DIR: join(p!.dir, 'cc', n) });
    /** Each its own program named claude (baton adds a resume only to the kind's program), logging to <n>.log. */
    const fake = (n: string, flags: string) => {
      const bin = join(p!.dir, n, 'bin');
      mkdirSync(bin, { recursive: true });
      const log = JSON.stringify(join(p!.dir, `${n}.log`));
      writeFileSync(
        join(bin, 'claude'),
        `#!/bin/sh\nexec node ${JSON.stringify(FAKE_CLAUDE)} ${log} --hooks ${flags} "$@"\n`,
        {
          mode: 0o755,
        },
      );
      return join(bin, 'claude');
    };
    const submitted = (n: string) =>
      existsSync(join(p!.dir, `${n}.log`))
        ? readFileSync(join(p!.dir, `${n}.log`), 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => (JSON.parse(l) as { text: string }).text)
        : [];
    p.writeConfig({
      message_dir: './messages',
      agents: {
        claude1: { kind: 'claude', command: fake('claude1', `--session ${ID.x}`), env: cc('claude1') },
        // It loses its second prompt: no receipt ever comes for it.
        claude2: { kind: 'claude', command: fake('claude2', `--session ${ID.c} --lose 2`), env: cc('claude2') },
      },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      inbox: { max_bytes: 1048576, settle_ms: 300 },
      delivery: { enter_delay_ms: 100 },
    });
    expect((await p.cli(['up'])).exitCode).toBe(0);
    expect((await p.cli(['post', '--as', 'claude1', 'one'])).exitCode).toBe(0);
    await waitFor('msg_0001 received', () => p!.archive()[0]?.received, 20_000);
    await waitFor(
      'claude2 session kept',
      () => (p!.state().sessions as Record<string, { id: string }> | undefined)?.claude2?.id === ID.c,
      10_000,
    );
    // Its pane killed (a person, a crash), then `up`: the client resumes, and is reminded.
    const pid = Number((await p.tmux(['display-message', '-p', '-t', '=claude2:', '#{pane_pid}'])).stdout.trim());
    process.kill(pid, 'SIGKILL');
    await waitFor(
      'claude2 dead',
      async () => (await p!.tmux(['display-message', '-p', '-t', '=claude2:', '#{pane_dead}'])).stdout.trim() === '1',
    );
    const up = await p.cli(['up'], { env: FAST });
    expect(up.stdout + up.stderr).toContain('claude2: started "');
    expect(up.stdout + up.stderr).toContain('resuming its session');
    await waitFor(
      'reminded',
      () => submitted('claude2').some((t) => t.startsWith('[baton] claude2, your session was resumed')),
      20_000,
    );
    expect(submitted('claude2').filter((t) => t.startsWith('[baton] msg_0001 from claude1')).length).toBe(1);
    // claude2 answers; claude1 answers back: msg_0003 is lost in claude2's client (its second submit).
    expect((await p.cli(['post', '--as', 'claude2', 'two'])).exitCode).toBe(0);
    await waitFor('msg_0002 delivered', () => p!.archive()[1]?.delivered_at, 20_000);
    expect((await p.cli(['post', '--as', 'claude1', 'three'])).exitCode).toBe(0);
    await waitFor('msg_0003 stamped', () => p!.archive()[2]?.delivered_at, 20_000);
    const pid2 = Number((await p.tmux(['display-message', '-p', '-t', '=claude2:', '#{pane_pid}'])).stdout.trim());
    process.kill(pid2, 'SIGKILL');
    await waitFor(
      'claude2 dead again',
      async () => (await p!.tmux(['display-message', '-p', '-t', '=claude2:', '#{pane_dead}'])).stdout.trim() === '1',
    );
    await p.cli(['up'], { env: FAST });
    await waitFor(
      'msg_0003 again, flagged',
      () => submitted('claude2').some((t) => /^\[baton\] msg_0003 from claude1.*\(redelivered\)/.test(t)),
      20_000,
    );
    // The event follows the typing's confirmation: waited for.
    const told = () =>
      p!
        .events()
        .filter((e) => e.event === 'restarted')
        .map((e) => [e.id, e.told]);
    await waitFor('both told', () => told().length === 2, 10_000);
    expect(told()).toEqual([
      ['msg_0001', 'remind'],
      ['msg_0003', 'redeliver'],
    ]);
  });
});
