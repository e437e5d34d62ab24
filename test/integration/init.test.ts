import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, CLI, Project, ROOT, waitFor } from '../helpers/harness.js';
import { MARKER } from '../../src/app/up/instructions.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

describe('baton init', () => {
  it('scaffolds a conversation in any folder that up --demo then runs: three agents in round robin', async () => {
    p = new Project(); // for its private tmux server; the conversation lives in p.dir/proj
    const proj = join(p.dir, 'proj');
    const baton = (args: string[], env: Record<string, string> = {}) =>
      execa('node', [CLI, ...args], { cwd: proj, env: { ...p.env, ...env }, reject: false });
    const made = await execa('node', [CLI, 'init', proj, '--agents', '3'], { cwd: p.dir, env: p.env, reject: false });
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/wrote proj\/config.json \(3 claude agents, round_robin\)/);
    const config = JSON.parse(readFileSync(join(proj, 'config.json'), 'utf8'));
    expect(Object.keys(config.agents)).toEqual(['claude1', 'claude2', 'claude3']);
    for (const a of ['claude1', 'claude2', 'claude3']) {
      const text = readFileSync(join(proj, 'agents', a, 'CLAUDE.md'), 'utf8');
      expect(text.startsWith(MARKER)).toBe(true);
      expect(text).toContain(`# You are ${a}`);
    }
    expect(readFileSync(join(proj, 'agents', 'claude2', 'CLAUDE.md'), 'utf8')).toContain(
      'Your messages go to **claude3**',
    );
    expect(readFileSync(join(proj, 'messages', '.gitignore'), 'utf8')).toContain('*');
    for (const d of ['claude1_to_claude2', 'claude2_to_claude3', 'claude3_to_claude1'])
      expect(existsSync(join(proj, 'messages', d))).toBe(true);

    // A second init refuses to overwrite; bad options are usage errors.
    expect((await baton(['init'])).exitCode).toBe(1);
    expect((await baton(['init', '--kind', 'robot'])).exitCode).toBe(2);
    expect((await baton(['init', 'x', '--agents', '3', '--policy', 'alternate'])).exitCode).toBe(2);

    // A person's own instructions file is kept by up.
    const own = join(proj, 'agents', 'claude3', 'CLAUDE.md');
    const mine = '# my own notes for claude3\n';
    await import('node:fs').then((fs) => fs.writeFileSync(own, mine));
    const up = await baton(['up', '--demo'], { BATON_DEMO_DELAY_MS: '100', BATON_DEMO_TURNS: '8' });
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
    expect(readFileSync(own, 'utf8')).toBe(mine);
    const archive = () =>
      ['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004']
        .map((id) => join(proj, 'messages', 'archive', `${id}.json`))
        .filter(existsSync)
        .map((f) => JSON.parse(readFileSync(f, 'utf8')) as { sender: string; delivered_at: string | null });
    await waitFor('four demo messages', () => archive().filter((r) => r.delivered_at).length === 4, 40_000);
    expect(archive().map((r) => r.sender)).toEqual(['claude1', 'claude2', 'claude3', 'claude1']);
    expect((await baton(['down'])).exitCode).toBe(0);
  });

  it('mixes kinds (--kind claude,codex,gemini): each agent gets its own instructions and hooks in its folder, and the demo stands in for all three', async () => {
    p = new Project();
    const proj = join(p.dir, 'mixed');
    const made = await execa('node', [CLI, 'init', proj, '--kind', 'claude,codex,gemini'], {
      cwd: p.dir,
      env: p.env,
      reject: false,
    });
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/\(3 claude, codex, gemini agents, round_robin\)/);
    const config = JSON.parse(readFileSync(join(proj, 'config.json'), 'utf8')) as {
      agents: Record<string, { kind: string }>;
    };
    expect(Object.entries(config.agents).map(([n, a]) => `${n}:${a.kind}`)).toEqual([
      'claude1:claude',
      'codex1:codex',
      'gemini1:gemini',
    ]);
    const at = (...f: string[]) => join(proj, 'agents', ...f);
    for (const f of [at('claude1', 'CLAUDE.md'), at('codex1', 'AGENTS.md'), at('gemini1', 'GEMINI.md')])
      expect(readFileSync(f, 'utf8').startsWith(MARKER), f).toBe(true);
    // Each client's hooks in its own folder, running `baton hook` (never ~/.claude, ~/.codex, ~/.gemini).
    const codexHooks = JSON.parse(readFileSync(at('codex1', '.codex', 'hooks.json'), 'utf8')) as {
      hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    };
    expect(Object.keys(codexHooks.hooks).sort()).toEqual([
      'PermissionRequest',
      'PostToolUse',
      'Stop',
      'UserPromptSubmit',
    ]);
    expect(codexHooks.hooks.Stop![0]!.hooks[0]!.command).toMatch(
      / hook stop --agent 'codex1' .*\|\| true # baton-hook$/,
    );
    const gemini = JSON.parse(readFileSync(at('gemini1', '.gemini', 'settings.json'), 'utf8')) as {
      hooks: Record<string, unknown[]>;
    };
    expect(Object.keys(gemini.hooks).sort()).toEqual(['AfterAgent', 'AfterTool', 'BeforeAgent', 'Notification']);
    expect(readFileSync(at('gemini1', '.gemini', 'baton-policy.toml'), 'utf8')).toContain(
      'commandPrefix = "baton post"',
    );
    expect(existsSync(at('claude1', '.claude', 'settings.local.json'))).toBe(true);
    // A mismatch of --kind and --agents is a usage error.
    expect(
      (
        await execa('node', [CLI, 'init', join(p.dir, 'x'), '--kind', 'codex,gemini', '--agents', '3'], {
          env: p.env,
          reject: false,
        })
      ).exitCode,
    ).toBe(2);
    const baton = (args: string[], env: Record<string, string> = {}) =>
      execa('node', [CLI, ...args], { cwd: proj, env: { ...p.env, ...env }, reject: false });
    const up = await baton(['up', '--demo'], { BATON_DEMO_DELAY_MS: '100', BATON_DEMO_TURNS: '6' });
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
    const delivered = () =>
      ['msg_0001', 'msg_0002', 'msg_0003']
        .map((id) => join(proj, 'messages', 'archive', `${id}.json`))
        .filter(existsSync)
        .map((f) => JSON.parse(readFileSync(f, 'utf8')) as { sender: string; delivered_at: string | null });
    await waitFor('three demo messages', () => delivered().filter((r) => r.delivered_at).length === 3, 40_000);
    expect(delivered().map((r) => r.sender)).toEqual(['claude1', 'codex1', 'gemini1']);
    const status = JSON.parse((await baton(['status', '--json'])).stdout) as {
      agents: Record<string, { kind: string; demo: boolean }>;
    };
    expect(Object.values(status.agents).map((a) => [a.kind, a.demo])).toEqual([
      ['claude', true],
      ['codex', true],
      ['gemini', true],
    ]);
    expect((await baton(['down'])).exitCode).toBe(0);
  });

  it("baton up's panes find baton on their PATH, though the shell that ran baton up did not (tmux gives a new session its client's PATH)", async () => {
    p = new Project();
    const proj = join(p.dir, 'proj');
    const found = join(p.dir, 'found.txt');
    expect(
      (await execa('node', [CLI, 'init', proj, '--kind', 'generic'], { env: p.env, reject: false })).exitCode,
    ).toBe(0);
    const file = join(proj, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as { agents: Record<string, { command: string }> };
    for (const a of Object.values(config.agents)) a.command = `sh -c 'command -v baton >> ${found}; exec cat'`;
    writeFileSync(file, JSON.stringify(config));
    const path = (process.env.PATH ?? '')
      .split(':')
      .filter((d) => !existsSync(join(d, 'baton')))
      .join(':');
    const up = await execa('node', [CLI, 'up'], { cwd: proj, env: { ...p.env, PATH: path }, reject: false });
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    await waitFor(
      'both panes looked',
      () => existsSync(found) && readFileSync(found, 'utf8').trim().split('\n').length === 2,
    );
    expect(readFileSync(found, 'utf8').trim().split('\n')).toEqual([
      join(ROOT, 'bin', 'baton'),
      join(ROOT, 'bin', 'baton'),
    ]);
    expect((await execa('node', [CLI, 'down'], { cwd: proj, env: p.env, reject: false })).exitCode).toBe(0);
  });

  it('baton down ends an agent that ignores the hangup (as Gemini CLI does), not only its tmux session', async () => {
    p = new Project();
    const proj = join(p.dir, 'proj');
    expect(
      (await execa('node', [CLI, 'init', proj, '--kind', 'generic'], { env: p.env, reject: false })).exitCode,
    ).toBe(0);
    const file = join(proj, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as { agents: Record<string, { command: string }> };
    for (const [name, a] of Object.entries(config.agents))
      a.command = `sh -c 'trap "" HUP; echo $$ > ${join(p.dir, `${name}.pid`)}; exec sleep 600'`;
    writeFileSync(file, JSON.stringify(config));
    expect((await execa('node', [CLI, 'up'], { cwd: proj, env: p.env, reject: false })).exitCode).toBe(0);
    const pidFiles = Object.keys(config.agents).map((n) => join(p!.dir, `${n}.pid`));
    await waitFor('both agents started', () => pidFiles.every(existsSync));
    const pids = pidFiles.map((f) => Number(readFileSync(f, 'utf8')));
    expect(pids.every((pid) => alive(pid))).toBe(true);
    expect((await execa('node', [CLI, 'down'], { cwd: proj, env: p.env, reject: false })).exitCode).toBe(0);
    await waitFor('the agents ended', () => pids.every((pid) => !alive(pid)), 10_000);
  });
});
