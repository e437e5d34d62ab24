/**
 * A newcomer's first ten minutes, tried as a new user would on a private tmux server: output to a closed
 * pipe, giving the agents a topic (under every policy), pause and resume, the demo ending by itself, and
 * never mixing demo and real agents in one conversation or one session.
 */
import { execa } from 'execa';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { DEMO_JS } from '../../src/app/paths.js';
import { CLI, Project, RECORDER, readRecorder, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const json = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>;
const heads = (log: string) => readRecorder(log).pastes.map((t) => t.split('\n')[0]!);

describe('output to a closed pipe', () => {
  it('log, log --json, log --md and status piped into head -1 end quietly with exit 0, every time', async () => {
    p = new Project();
    // More than a pipe holds (64 KiB), so the command is still writing when head exits.
    mkdirSync(p.path('archive'), { recursive: true });
    for (let i = 1; i <= 300; i++) {
      const id = `msg_${String(i).padStart(4, '0')}`;
      writeFileSync(
        p.path('archive', `${id}.json`),
        JSON.stringify({
          id,
          reply_to: null,
          sender: 'claude1',
          receiver: 'claude2',
          type: 'message',
          content: 'x'.repeat(1000),
          direction: 'c1_to_c2',
          source_file: 'f.json',
          received_at: '2026-01-01T00:00:00.000Z',
          delivered_at: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
        }),
      );
    }
    for (const [args, runs] of [
      [['log'], 10],
      [['log', '--json'], 10],
      [['log', '--md'], 4],
    ] as const) {
      for (let run = 0; run < runs; run++) {
        const r = await execa(
          'bash',
          [
            '-c',
            `node "$0" "$@" --config "${p.configFile}" | head -1 >/dev/null; echo "exit=\${PIPESTATUS[0]}"`,
            CLI,
            ...args,
          ],
          { env: p.env, reject: false, cwd: p.dir },
        );
        expect(r.stdout.trim(), `${args.join(' ')} run ${run}: ${r.stderr}`).toBe('exit=0');
        expect(r.stderr, `${args.join(' ')} run ${run}`).toBe('');
      }
    }
  }, 180_000);
});

describe('a closed pipe never stops a command that changes state half-way', () => {
  it('up --demo | head -1 starts both agents and the daemon, exit 0; down | head -1 stops them all', async () => {
    p = new Project();
    // `up 2>&1 | head -1` once exited 0 after its first line: one agent started, the other not, no daemon.
    const piped = (args: string[]) =>
      execa(
        'bash',
        [
          '-c',
          `node "$0" "$@" --config "${p!.configFile}" 2>&1 | head -1; echo "exit=\${PIPESTATUS[0]}"`,
          CLI,
          ...args,
        ],
        { env: p!.env, reject: false, cwd: p!.dir },
      );
    const up = await piped(['up', '--demo']);
    expect(up.stdout.split('\n')).toEqual([expect.stringContaining('[baton]'), 'exit=0']);
    const report = JSON.parse((await p.cli(['status', '--json'])).stdout) as {
      daemon: { running: boolean };
      agents: Record<string, { alive: boolean }>;
    };
    expect(report.daemon.running).toBe(true);
    expect(report.agents.claude1!.alive && report.agents.claude2!.alive).toBe(true);
    const down = await piped(['down']);
    expect(down.stdout.trim().split('\n').at(-1)).toBe('exit=0');
    expect((await p.tmux(['ls'])).stdout).toBe('');
    expect((await p.cli(['status', '--json'])).stdout).toContain('"running": false');
  });

  it('a command that changes state and fails exits with its own code, its output gone to a closed pipe', async () => {
    p = new Project();
    // Both ends closed before the command writes a word: every write of its gets EPIPE.
    const run = (args: string[]) =>
      new Promise<number | null>((done) => {
        const child = spawn('node', [CLI, ...args, '--config', p!.configFile], { env: { ...process.env, ...p!.env } });
        child.stdout.destroy();
        child.stderr.destroy();
        child.on('exit', (code) => done(code));
      });
    expect(await run(['post', '--as', 'nobody', 'hello'])).toBe(2);
    expect(await run(['send', '--to', 'claude1', 'hello'])).toBe(1); // no daemon, no pane
    expect(await run(['post', '--as', 'claude1', 'hello'])).toBe(0);
    expect(p.ls('c1_to_c2')).toHaveLength(1);
  });
});

describe('giving the agents a topic', () => {
  it('up --demo --topic under alternate, round_robin and handoff: the first speaker opens on the topic, and the demo ends by itself (max_turns)', async () => {
    p = new Project(); // its private tmux server; three projects made by init share it without clashing
    const cases = [
      ['alt', '2', 'alternate'],
      ['rr', '3', 'round_robin'],
      ['hand', '3', 'handoff'],
    ] as const;
    const topic = 'Plan the v2 migration: what breaks, and in which order do we ship it?';
    const projects = await Promise.all(
      cases.map(async ([name, n, policy]) => {
        const dir = join(p!.dir, name);
        const init = await execa('node', [CLI, 'init', dir, '--agents', n, '--policy', policy], {
          cwd: p!.dir,
          env: p!.env,
          reject: false,
        });
        expect(init.exitCode, init.stderr).toBe(0);
        return { dir, name, n: Number(n), policy };
      }),
    );
    await Promise.all(
      projects.map(async (q) => {
        const baton = (args: string[]) =>
          execa('node', [CLI, ...args], { cwd: q.dir, env: { ...p!.env, BATON_DEMO_DELAY_MS: '50' }, reject: false });
        const up = await baton(['up', '--demo', '--topic', topic]);
        expect(up.exitCode, `${q.policy}: ${up.stdout}\n${up.stderr}`).toBe(0);
        expect(up.stdout).toMatch(/topic: +user_0001 typed into claude1's pane: claude1 opens the conversation/);
        const kick = json(join(q.dir, 'messages', 'archive', 'user_0001.json'));
        expect(kick).toMatchObject({
          sender: 'user',
          receiver: 'claude1',
          kickoff: true,
          type: 'task',
          content: topic,
        });
        await waitFor(
          `${q.policy}: finished`,
          () =>
            (json(join(q.dir, 'messages', 'state.json')).finished as { reason?: string } | null)?.reason ===
            'max_turns',
          60_000,
        );
        const first = json(join(q.dir, 'messages', 'archive', 'msg_0001.json'));
        expect(first.sender).toBe('claude1');
        expect(first.content).toContain(`"${topic}"`);
        expect(first.reply_to).toBeNull();
        const archived = readdirSync(join(q.dir, 'messages', 'archive')).filter((f) => f.startsWith('msg_'));
        expect(archived).toHaveLength(8);
        const speakers = archived.sort().map((f) => json(join(q.dir, 'messages', 'archive', f)).sender);
        expect(speakers).toEqual(Array.from({ length: 8 }, (_, i) => `claude${(i % q.n) + 1}`));
        const log = await baton(['log', '--json']);
        expect(log.stdout.split('\n')[0]).toContain('"id":"user_0001"');
        const status = await baton(['status']);
        expect(status.stdout).toMatch(/conversation +finished \(max_turns/);
        expect(status.stdout).toContain('demo agent (for claude)');
        expect(JSON.parse((await baton(['status', '--json'])).stdout)).toMatchObject({
          finished: { reason: 'max_turns' },
          demo: true,
          message_counter: 8,
        });
        expect((await baton(['down'])).exitCode).toBe(0);
      }),
    );
    // Three demos of eight turns at once took 10 s here and 17 s beside three busy loops: room for a loaded CI.
  }, 180_000);

  it('a topic waits for a demo agent until its pane is known to take a paste whole: on one line, its topic was lost', async () => {
    // The gap `up --demo --topic` once fell into (an opening archived with an empty topic): the demo agent has
    // turned on bracketed paste and drawn its banner, and the tracker `up` gives its pane (tmux < 3.7) has not
    // said so yet. Widened here: no tracker, @baton_paste left off, as up sets it before the program starts.
    p = new Project();
    const topic = 'Which of our three caches do we drop first?';
    for (const agent of ['claude1', 'claude2']) {
      const started = await p.tmux([
        'new-session',
        '-d',
        '-s',
        agent,
        '-x',
        '200',
        '-y',
        '50',
        '-e',
        `BATON_AGENT=${agent}`,
        '-e',
        `BATON_CONFIG=${p.configFile}`,
        '-e',
        'BATON_DEMO_WAIT_TOPIC=1',
        '-e',
        'BATON_DEMO_DELAY_MS=50',
        `exec node ${JSON.stringify(DEMO_JS)}`,
        ';',
        'set-option',
        '-t',
        `=${agent}:`,
        '@baton_demo',
        '1',
        ';',
        'set-option',
        '-p',
        '-t',
        `=${agent}:`,
        '@baton_paste',
        'off',
      ]);
      expect(started.exitCode, started.stderr).toBe(0);
      await waitFor(`${agent}'s banner`, async () =>
        (await p!.tmux(['capture-pane', '-p', '-t', `=${agent}:`])).stdout.includes('baton demo agent'),
      );
    }
    await p.startDaemon();
    const early = await p.cli(['start', topic]);
    expect(early.exitCode, early.stdout).not.toBe(0);
    expect(early.stdout + early.stderr).toContain('the demo agent has not turned on bracketed paste yet');
    expect(p.archive()).toHaveLength(0);
    // The tracker catches up: the topic goes, whole, and the demo opens on it.
    for (const agent of ['claude1', 'claude2'])
      await p.tmux(['set-option', '-p', '-t', `=${agent}:`, '@baton_paste', 'on']);
    const r = await p.cli(['start', topic]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    await waitFor('msg_0001', () => p!.archive()[0]?.delivered_at);
    expect(p.archive()[0]!.content).toContain(`"${topic}"`);
  });

  it('baton start types the topic to the turn holder, with how to answer, under every policy; it is archived and logged', async () => {
    for (const policy of ['alternate', 'round_robin', 'handoff'] as const) {
      const names = policy === 'alternate' ? ['a1', 'a2'] : ['a1', 'a2', 'a3'];
      p = new Project({
        agents: Object.fromEntries(names.map((n) => [n, { kind: 'generic', command: 'x' }])),
        directions: undefined,
        turns: { policy },
      });
      const logs = Object.fromEntries(
        await Promise.all(names.map(async (n) => [n, await p!.recorder(n, { reply: true })] as const)),
      );
      await p.startDaemon();
      const r = await p.cli(['start', 'Which sorting algorithm for 10^9 integers?']);
      expect(r.exitCode, `${policy}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/^user_0001 typed into a1's pane: a1 opens the conversation/);
      const paste = readRecorder(logs.a1!).pastes[0]!;
      expect(paste.split('\n')[0]).toBe('[baton] user_0001 from user [task]');
      expect(paste).toContain('Which sorting algorithm for 10^9 integers?');
      expect(paste).toContain(
        policy === 'handoff'
          ? 'baton post --to AGENT "<your message>" (AGENT: a2, a3)'
          : 'you hold the first turn, so open the conversation: write to a2 with: baton post',
      );
      // a1 opens, and the conversation runs on through baton by itself.
      await waitFor(`${policy}: three messages`, () => p!.archive().filter((m) => m.delivered_at).length >= 3, 20_000);
      expect(p.archive()[0]).toMatchObject({ sender: 'a1', content: 'opening user_0001', reply_to: null });
      expect(p.archive()[1]!.sender).toBe('a2');
      const log = await p.cli(['log']);
      expect(log.stdout.indexOf('user_0001')).toBeLessThan(log.stdout.indexOf('msg_0001'));
      await p.stop();
      p = undefined;
    }
  });
});

describe('pause, end and resume', () => {
  it('resume after end tells every pane the conversation continues and reminds the holder; pause holds silently', async () => {
    p = new Project({ turns: { max_turns: 2 } });
    const logs = { claude1: await p.recorder('claude1'), claude2: await p.recorder('claude2') };
    await p.startDaemon();
    p.send('c1_to_c2', '1.json', { content: 'one' });
    p.send('c2_to_c1', '2.json', { content: 'two' });
    await waitFor('finished', () => (p!.state().finished as { reason?: string } | null)?.reason === 'max_turns');
    await waitFor('told to stop', () =>
      Object.values(logs).every((l) => heads(l).some((h) => h.startsWith('[baton] the conversation has finished'))),
    );

    const resumed = await p.cli(['resume']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('resumed (it had finished: max_turns); claude1 has the turn; every pane was told');
    await waitFor('told it continues', () =>
      Object.values(logs).every((l) => heads(l).some((h) => h.startsWith('[baton] the conversation continues'))),
    );
    const holder = readRecorder(logs.claude1).pastes.find((t) => t.startsWith('[baton] the conversation continues'))!;
    expect(holder).toContain('it is your turn, and msg_0002 is waiting for your reply');
    expect(holder).toContain('baton post');
    expect(heads(logs.claude2).find((h) => h.startsWith('[baton] the conversation continues'))).toBe(
      '[baton] the conversation continues (a person resumed it): claude1 has the turn. Wait for the next message.',
    );

    // pause: a message waits, nobody is told anything; resume lets it through, still telling nobody.
    const before = Object.fromEntries(Object.entries(logs).map(([n, l]) => [n, readRecorder(l).pastes.length]));
    const paused = await p.cli(['pause', '--json']);
    expect(JSON.parse(paused.stdout)).toMatchObject({ ok: true });
    expect(p.state().paused).toBeTruthy();
    expect((await p.cli(['status'])).stdout).toMatch(/conversation +paused since/);
    p.send('c1_to_c2', '3.json', { content: 'three' });
    await waitFor('held while paused', () => p!.events().some((e) => e.event === 'held' && e.file === '3.json'));
    expect(p.archive()).toHaveLength(2);
    expect((await p.cli(['resume'])).stdout).toContain('resumed (it was paused); claude1 has the turn');
    await waitFor('msg_0003 delivered', () => p!.archive()[2]?.delivered_at);
    expect(readRecorder(logs.claude1).pastes.length).toBe(before.claude1);
    expect(
      readRecorder(logs.claude2)
        .pastes.slice(before.claude2!)
        .map((t) => t.split('\n')[0]),
    ).toEqual(['[baton] msg_0003 from claude1 (reply to msg_0002)']);
  });
});

describe('from the demo to real agents', () => {
  it('real agents neither inherit the demo conversation nor its sessions; the demo never joins a real conversation', async () => {
    p = new Project();
    const real = (name: string) =>
      `exec node ${JSON.stringify(RECORDER)} ${JSON.stringify(join(p!.dir, `${name}.log`))}`;
    p.writeConfig({
      message_dir: './messages',
      agents: {
        claude1: { kind: 'generic', command: real('claude1') },
        claude2: { kind: 'generic', command: real('claude2') },
      },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      inbox: { settle_ms: 300 },
      delivery: { enter_delay_ms: 20 },
    });
    const demoUp = await p.cli(['up', '--demo'], { env: { BATON_DEMO_DELAY_MS: '300' } });
    expect(demoUp.exitCode, demoUp.stderr).toBe(0);
    await waitFor('two demo messages', () => p!.archive().filter((m) => m.delivered_at).length >= 2, 20_000);

    // Real agents while the demo runs: the demo's conversation is kept aside, the demo programs replaced.
    const realUp = await p.cli(['up']);
    expect(realUp.exitCode, realUp.stderr).toBe(0);
    const said = realUp.stdout + realUp.stderr;
    expect(said).toMatch(
      /the conversation in this message folder was the demo's \(\d+ messages?\); the real agents start a new one/,
    );
    expect(said).toMatch(/previous conversation moved to .*history/);
    expect(said).not.toContain('left alone');
    const opts = await p.tmux(['show-options', '-t', '=claude1:', '@baton_demo']);
    expect(opts.stdout.trim()).toBe('');
    await waitFor('the real agent reads its terminal', async () =>
      (await p!.tmux(['capture-pane', '-p', '-t', '=claude1:'])).stdout.includes('recorder ready'),
    );
    expect(p.state()).toMatchObject({ message_counter: 0, current_turn: 'claude1' });
    expect(p.state().demo).toBeUndefined();
    expect(readdirSync(p.path('history'))).toHaveLength(1);

    // Continuing says so; the demo refuses to answer real agents' messages.
    p.send('c1_to_c2', 'real.json', { content: 'a real message' });
    await waitFor('msg_0001', () => p!.archive()[0]?.delivered_at);
    const again = await p.cli(['up']);
    expect(again.stdout + again.stderr).toContain(
      'continuing a conversation of 1 message (claude2 has the turn and owes a reply to msg_0001); "baton up --fresh" starts a new one',
    );
    const demoAgain = await p.cli(['up', '--demo']);
    expect(demoAgain.exitCode).toBe(1);
    expect(demoAgain.stderr).toContain('holds a conversation of real agents (1 message)');
    expect((await p.cli(['down'])).exitCode).toBe(0);

    // With nothing running, send says what is wrong and what to run, in one line, without tmux jargon.
    const send = await p.cli(['send', '--to', 'claude2', 'hello?']);
    expect(send.exitCode).toBe(1);
    expect(send.stdout.trim()).toBe(
      'not sent: claude2 cannot take it now (there is no tmux session "claude2"): nothing is running for this conversation; start it with "baton up"',
    );
    expect(send.stderr).toBe('');
  });

  it('up in a folder with no config.json (nor above it) says once what to do, and starts nothing', async () => {
    p = new Project();
    const empty = mkdtempSync(join(tmpdir(), 'baton-empty-'));
    onTestFinished(() => rmSync(empty, { recursive: true, force: true }));
    const r = await execa('node', [CLI, 'up'], { cwd: empty, env: p.env, reject: false });
    expect(r.exitCode).toBe(2);
    const said = `${r.stdout}\n${r.stderr}`;
    expect(said.match(/no config\.json/g), said).toHaveLength(1);
    expect(said).not.toContain('built-in default');
    expect(readdirSync(empty)).toEqual([]);
  });

  it('status in a folder with no config.json says there is no conversation here (exit 2) and names the nearest one', async () => {
    p = new Project();
    // Outside the project: config.json is found in the nearest folder above, as git finds its repository.
    const empty = mkdtempSync(join(tmpdir(), 'baton-empty-'));
    onTestFinished(() => rmSync(empty, { recursive: true, force: true }));
    const status = (args: string[] = []) =>
      execa('node', [CLI, 'status', ...args], { cwd: empty, env: p!.env, reject: false });
    // It once showed a made-up conversation (the built-in default's agents, "not running") and exited 0.
    const r = await status();
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`no conversation here: no config.json in ${empty} or any folder above it`);
    expect(r.stderr).toContain('"baton init" makes one here, or give --config FILE');
    const asJson = await status(['--json']);
    expect([asJson.exitCode, asJson.stdout]).toEqual([2, '']);
    // A project one level down is the nearest hint.
    expect((await execa('node', [CLI, 'init', 'review'], { cwd: empty, env: p.env, reject: false })).exitCode).toBe(0);
    expect((await status()).stderr).toContain('a conversation is below this folder: cd review && baton status');
    expect(
      (await execa('node', [CLI, 'status'], { cwd: join(empty, 'review'), env: p.env, reject: false })).exitCode,
    ).toBe(0);
  });

  it('projects an older init named alike (review-shell1 twice): the second up is refused with names that are free, and runs with them', async () => {
    p = new Project();
    const dirs = ['a/review', 'b/review'].map((n) => join(p!.dir, n));
    const env = { ...p.env, BATON_DEMO_DELAY_MS: '50', BATON_DEMO_TURNS: '100' };
    const baton = (cwd: string, args: string[]) => execa('node', [CLI, ...args], { cwd, env, reject: false });
    for (const dir of dirs) {
      expect((await baton(p.dir, ['init', dir, '--kind', 'shell'])).exitCode).toBe(0);
      // What init wrote before: <folder>-<agent>, the same in both.
      const c = json(join(dir, 'config.json')) as { agents: Record<string, { session: string }> };
      for (const [name, a] of Object.entries(c.agents)) a.session = `review-${name}`;
      writeFileSync(join(dir, 'config.json'), JSON.stringify(c));
    }
    expect((await baton(dirs[0]!, ['up', '--demo'])).exitCode).toBe(0);
    const refused = await baton(dirs[1]!, ['up', '--demo']);
    expect(refused.exitCode).toBe(1);
    // It once suggested the very name that collided.
    const suggested = [...refused.stderr.matchAll(/"session": "([^"]+)"/g)].map((m) => m[1]!);
    expect(suggested).toEqual([
      expect.stringMatching(/^review-[0-9a-f]{4}-shell1$/),
      expect.stringMatching(/^review-[0-9a-f]{4}-shell2$/),
    ]);
    const running = (await p.tmux(['list-sessions', '-F', '#{session_name}'])).stdout.split('\n');
    for (const name of suggested) expect(running).not.toContain(name);
    const c = json(join(dirs[1]!, 'config.json')) as { agents: Record<string, { session: string }> };
    c.agents.shell1!.session = suggested[0]!;
    c.agents.shell2!.session = suggested[1]!;
    writeFileSync(join(dirs[1]!, 'config.json'), JSON.stringify(c));
    const up = await baton(dirs[1]!, ['up', '--demo']);
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
    for (const dir of dirs) expect((await baton(dir, ['down'])).exitCode).toBe(0);
  });

  it('init gives every project its own session names, folders of one name too: both up at once on one tmux server', async () => {
    p = new Project();
    // a/review and b/review: init named both projects' sessions review-shell1, and the second up was refused.
    const dirs = ['one', 'a/review', 'b/review'].map((n) => join(p!.dir, n));
    for (const dir of dirs) {
      const made = await execa('node', [CLI, 'init', dir, '--kind', 'shell'], {
        cwd: p.dir,
        env: p.env,
        reject: false,
      });
      expect(made.exitCode, made.stderr).toBe(0);
    }
    const sessions = dirs.map((d) =>
      Object.values(json(join(d, 'config.json')).agents as Record<string, { session: string }>).map((a) => a.session),
    );
    expect(sessions[0]).toEqual([expect.stringMatching(/^one-[0-9a-f]{4}-shell1$/), expect.stringMatching(/-shell2$/)]);
    expect(sessions[1]![0]).toMatch(/^review-[0-9a-f]{4}-shell1$/);
    expect(new Set(sessions.flat()).size).toBe(6);
    expect(existsSync(join(dirs[1]!, 'agents', 'shell1', 'AGENTS.md'))).toBe(true);

    const env = { ...p.env, BATON_DEMO_DELAY_MS: '50', BATON_DEMO_TURNS: '100' };
    const ups = await Promise.all(
      dirs.slice(1).map((cwd) => execa('node', [CLI, 'up', '--demo'], { cwd, env, reject: false })),
    );
    for (const up of ups) expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
    for (const dir of dirs.slice(1)) {
      const report = JSON.parse(
        (await execa('node', [CLI, 'status', '--json'], { cwd: dir, env, reject: false })).stdout,
      ) as { daemon: { running: boolean }; agents: Record<string, { alive: boolean; target: string }> };
      expect(report.daemon.running, dir).toBe(true);
      expect(Object.values(report.agents).map((a) => a.alive)).toEqual([true, true]);
      await waitFor(`${dir} moves`, () => existsSync(join(dir, 'messages', 'archive', 'msg_0002.json')), 30_000);
    }
    for (const cwd of dirs.slice(1))
      expect((await execa('node', [CLI, 'down'], { cwd, env, reject: false })).exitCode).toBe(0);
  });
});
