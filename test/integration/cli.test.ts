/**
 * The command line (docs/protocol.md §2, §3, §4, §6, §8) run as a user runs it: `node dist/cli.js ...`
 * against a temp project and a private tmux server. Exit codes, usage, config errors, `post`, `status --json`,
 * `up --demo` / `down` end to end, and `attach`.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/app/status/status.js';
import { CLI, Project, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

/** The CLI with `--config FILE` *before* the command and nothing appended (so `--` ends the options for real). */
function raw(q: Project, args: string[], opts: { input?: string; env?: Record<string, string> } = {}) {
  return execa('node', [CLI, '--config', q.configFile, ...args], {
    env: { ...q.env, ...opts.env },
    reject: false,
    input: opts.input ?? '',
    cwd: q.dir,
  });
}

async function status(q: Project): Promise<StatusReport> {
  const r = await q.cli(['status', '--json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusReport;
}

const readJson = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>;

describe('exit codes and usage', () => {
  it('no command, --help, unknown command, unknown flag, --version', async () => {
    p = new Project();
    const [none, help, unknown, bogus, version, versionShort] = await Promise.all([
      p.cli([]),
      p.cli(['--help']),
      p.cli(['frobnicate']),
      p.cli(['status', '--bogus']),
      p.cli(['--version']),
      p.cli(['-v']),
    ]);

    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('Usage: baton <command>');
    expect(none.stdout).toBe('');

    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Usage: baton <command>');

    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('frobnicate');
    expect(unknown.stdout).toBe('');

    expect(bogus.exitCode).toBe(2);
    expect(bogus.stderr).toContain('--bogus');
    expect(bogus.stderr).toContain('Usage: baton status');
    expect(bogus.stdout).toBe('');

    const pkg = JSON.parse(readFileSync(join(CLI, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(version.exitCode).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
    expect(versionShort.exitCode).toBe(0);
    expect(versionShort.stdout.trim()).toBe(pkg.version);
  });

  it('every command listed in the global help has a --help that exits 0 with "Usage: baton <cmd>"', async () => {
    p = new Project();
    const help = await p.cli(['--help']);
    const section = help.stdout.split(/^Commands:\s*$/m)[1]!.split(/^\S/m)[0]!;
    const names = [...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]!);
    // At least the commands this version must have; others being added later are checked too.
    expect(names).toEqual(expect.arrayContaining(['up', 'daemon', 'status', 'post', 'attach', 'down']));
    const results = await Promise.all(names.map(async (n) => [n, await p!.cli([n, '--help'])] as const));
    for (const [n, r] of results) {
      expect(r.exitCode, `${n} --help`).toBe(0);
      expect(r.stdout, `${n} --help`).toContain(`Usage: baton ${n}`);
    }
    // `-h` and `help <cmd>` say the same thing.
    const [short, topic] = await Promise.all([p.cli(['post', '-h']), p.cli(['help', 'post'])]);
    expect(short.exitCode).toBe(0);
    expect(short.stdout).toContain('Usage: baton post');
    expect(topic.exitCode).toBe(0);
    expect(topic.stdout).toContain('Usage: baton post');
  });

  it('post: missing text, unknown --as, no sender, bad --type, stray argument are usage errors (2)', async () => {
    p = new Project();
    const [noText, unknownAs, noSender, badType, twoArgs, emptyText, statusArg] = await Promise.all([
      p.cli(['post', '--as', 'claude1']),
      p.cli(['post', '--as', 'nobody', 'hello']),
      p.cli(['post', 'hello']),
      p.cli(['post', '--as', 'claude1', '--type', 'bogus', 'hello']),
      p.cli(['post', '--as', 'claude1', 'two', 'words']),
      p.cli(['post', '--as', 'claude1', '   ']),
      p.cli(['status', 'extra']),
    ]);
    for (const [what, r] of Object.entries({ noText, unknownAs, noSender, badType, twoArgs, emptyText, statusArg })) {
      expect(r.exitCode, `${what}: ${r.stderr}`).toBe(2);
    }
    expect(noText.stderr).toContain('Usage: baton post');
    expect(unknownAs.stderr).toContain('nobody');
    expect(badType.stderr).toMatch(/--type/);
    // Nothing was written by any of them.
    expect(p.ls('c1_to_c2')).toEqual([]);
    expect(p.ls('c2_to_c1')).toEqual([]);
  });

  it('a mistyped command or option gets one line with "did you mean", the usage line, and no 20-line help', async () => {
    p = new Project();
    const [cmd, opt, missing, flagValue, globalTypo, globalShort] = await Promise.all([
      p.cli(['stauts']),
      p.cli(['up', '--dmeo']),
      p.cli(['send', '--to']),
      p.cli(['log', '--follow=yes']),
      p.cli(['--versoin']),
      p.cli(['-x']),
    ]);
    // baton's own options too, before any command (they once got the whole help and no word of the typo).
    expect(globalTypo.exitCode).toBe(2);
    expect(globalTypo.stdout).toBe('');
    expect(globalTypo.stderr.trim().split('\n')).toEqual([
      'baton: unknown option --versoin — did you mean --version?',
      'Usage: baton <command> [options] [--config FILE]   (more: baton --help)',
    ]);
    expect(globalShort.exitCode).toBe(2);
    expect(globalShort.stderr.trim().split('\n')).toEqual([
      'baton: unknown option -x',
      'Usage: baton <command> [options] [--config FILE]   (more: baton --help)',
    ]);
    expect(cmd.exitCode).toBe(2);
    expect(cmd.stderr.trim().split('\n')).toEqual([
      'baton: unknown command "stauts" — did you mean "status"?  (baton --help lists the commands)',
    ]);
    expect(opt.exitCode).toBe(2);
    expect(opt.stderr.trim().split('\n')).toEqual([
      'baton up: unknown option --dmeo — did you mean --demo?',
      'Usage: baton up [--demo] [--fresh] [--fresh-agents] [--topic TEXT] [--config FILE]   (more: baton up --help)',
    ]);
    expect(missing.stderr.split('\n')[0]).toMatch(/^baton send: --to needs a value/);
    expect(flagValue.exitCode).toBe(2);
    expect(flagValue.stderr.split('\n')).toEqual([
      'baton log: --follow takes no value',
      expect.stringMatching(/^Usage: baton log /),
    ]);
  });

  it("every command's usage line lists the options its help describes, and its help shows an example", async () => {
    const { COMMANDS } = await import('../../src/cli/commands/index.js');
    for (const [name, spec] of Object.entries(COMMANDS)) {
      for (const [opt, def] of Object.entries(spec.options ?? {})) {
        expect(spec.usage, `${name}: --${opt} in the usage line`).toContain(`--${opt}`);
        expect(spec.help, `${name}: --${opt} in the help`).toContain(`--${opt}`);
        if ((def as { short?: string }).short)
          expect(spec.help, `${name}: -${(def as { short?: string }).short}`).toContain(
            `-${(def as { short?: string }).short}`,
          );
      }
      expect(spec.examples.length, `${name} has an example`).toBeGreaterThan(0);
      for (const e of spec.examples) expect(e, `${name} example`).toMatch(new RegExp(`(^|[ =;&|(])baton ${name}\\b`));
    }
  });

  it('attach: an unknown agent, or none, is a usage error (2)', async () => {
    p = new Project();
    const [unknown, none] = await Promise.all([p.cli(['attach', 'nobody']), p.cli(['attach'])]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('nobody');
    expect(none.exitCode).toBe(2);
  });
});

describe('config errors', () => {
  it('an unknown key exits 2 naming its key path; invalid JSON exits 2; a wrong type names its path', async () => {
    p = new Project();
    writeFileSync(p.configFile, JSON.stringify({ turns: { polcy: 'x' } }));
    const unknownKey = await p.cli(['status', '--json']);
    expect(unknownKey.exitCode).toBe(2);
    expect(unknownKey.stderr).toContain('turns.polcy');
    expect(unknownKey.stdout).toBe('');

    writeFileSync(p.configFile, JSON.stringify({ inbox: { max_bytes: 'big' } }));
    const wrongType = await p.cli(['status']);
    expect(wrongType.exitCode).toBe(2);
    expect(wrongType.stderr).toContain('inbox.max_bytes');

    writeFileSync(p.configFile, '{"message_dir": "./messages",');
    const badJson = await p.cli(['status', '--json']);
    expect(badJson.exitCode).toBe(2);
    expect(badJson.stderr).toContain(p.configFile);
    expect(badJson.stderr).toMatch(/at line 1, column 30/); // a person's editor shows lines, not positions

    const missing = await execa('node', [CLI, 'status', '--config', join(p.dir, 'no-such-config.json')], {
      env: p.env,
      reject: false,
      cwd: p.dir,
    });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no-such-config.json');
    expect(missing.stderr).toContain('no such file — run "baton init"');
    expect(missing.stderr).not.toContain('ENOENT');

    // Config errors win over the command doing anything: post writes nothing.
    const post = await p.cli(['post', '--as', 'claude1', 'hello']);
    expect(post.exitCode).toBe(2);
    expect(existsSync(p.messages)).toBe(false);
  });

  it("the original tool's three-key config loads", async () => {
    p = new Project();
    writeFileSync(
      p.configFile,
      JSON.stringify({ message_dir: './messages', c1_to_c2: 'c1_to_c2', c2_to_c1: 'c2_to_c1' }),
    );
    const s = await status(p);
    expect(Object.keys(s.held).sort()).toEqual(['c1_to_c2', 'c2_to_c1']);
    expect(Object.keys(s.agents).sort()).toEqual(['claude1', 'claude2']);
    const post = await p.cli(['post', '--as', 'claude2', 'legacy']);
    expect(post.exitCode, post.stderr).toBe(0);
    expect(p.ls('c2_to_c1')).toHaveLength(1);
  });
});

describe('post', () => {
  it("writes exactly one well-formed message file, atomically, into the sender's outgoing folder", async () => {
    p = new Project();
    const before = Date.now();
    const r = await p.cli(['post', '--as', 'claude1', 'hello']);
    expect(r.exitCode, r.stderr).toBe(0);
    const names = readdirSync(p.path('c1_to_c2')); // dot-files included: no temp file left behind
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^msg_\d+\.json$/);
    expect(r.stdout.trim()).toBe(p.path('c1_to_c2', names[0]!));
    const m = readJson(p.path('c1_to_c2', names[0]!));
    expect(m).toMatchObject({ content: 'hello', sender: 'claude1', receiver: 'claude2', type: 'message' });
    expect(m).not.toHaveProperty('id');
    expect(m).not.toHaveProperty('reply_to');
    const ts = Date.parse(m.timestamp as string);
    expect(ts).toBeGreaterThanOrEqual(before - 1000);
    expect(ts).toBeLessThanOrEqual(Date.now() + 1000);
    expect(p.ls('c2_to_c1')).toEqual([]);

    // A second post sorts after the first (file names are in time order).
    await p.cli(['post', '--as', 'claude1', 'again']);
    const two = readdirSync(p.path('c1_to_c2')).sort();
    expect(two).toHaveLength(2);
    expect(readJson(p.path('c1_to_c2', two[1]!)).content).toBe('again');
  });

  it('BATON_AGENT, "--" before text starting with "-", "-" for stdin, --type, --subject, --json', async () => {
    p = new Project();
    const env = await p.cli(['post', 'from the environment'], { env: { BATON_AGENT: 'claude2' } });
    expect(env.exitCode, env.stderr).toBe(0);
    const c2 = p.ls('c2_to_c1');
    expect(c2).toHaveLength(1);
    expect(readJson(p.path('c2_to_c1', c2[0]!))).toMatchObject({
      sender: 'claude2',
      receiver: 'claude1',
      content: 'from the environment',
    });

    // --as wins over BATON_AGENT.
    const both = await p.cli(['post', '--as', 'claude1', 'as wins'], { env: { BATON_AGENT: 'claude2' } });
    expect(both.exitCode, both.stderr).toBe(0);
    expect(p.ls('c2_to_c1')).toHaveLength(1);
    expect(p.ls('c1_to_c2')).toHaveLength(1);

    const dash = await raw(p, ['post', '--as', 'claude1', '--', '-1 is the answer']);
    expect(dash.exitCode, dash.stderr).toBe(0);
    expect(readJson(dash.stdout.trim()).content).toBe('-1 is the answer');

    const stdin = await p.cli(['post', '--as', 'claude1', '-'], { input: 'line one\nline "two" from stdin\n' });
    expect(stdin.exitCode, stdin.stderr).toBe(0);
    expect((readJson(stdin.stdout.trim()).content as string).trimEnd()).toBe('line one\nline "two" from stdin');

    const json = await p.cli(['post', '--as', 'claude2', '--type', 'question', '--subject', 'Q1', '--json', 'why?']);
    expect(json.exitCode, json.stderr).toBe(0);
    const out = JSON.parse(json.stdout) as { file: string; direction: string; from: string; to: string };
    expect(out).toMatchObject({ direction: 'c2_to_c1', from: 'claude2', to: 'claude1' });
    expect(out.file).toBe(p.path('c2_to_c1', out.file.split('/').pop()!));
    expect(readJson(out.file)).toMatchObject({
      content: 'why?',
      type: 'question',
      subject: 'Q1',
      sender: 'claude2',
      receiver: 'claude1',
    });

    // No temp files anywhere.
    for (const d of ['c1_to_c2', 'c2_to_c1']) expect(p.ls(d).filter((n) => !/^msg_\d+\.json$/.test(n))).toEqual([]);
  });
});

describe('post: what baton would reject is refused before anything is written', () => {
  it('too big for inbox.max_bytes, a folder the policy never delivers, a receiver that does not exist: exit 2', async () => {
    p = new Project({
      agents: {
        claude1: { kind: 'generic', command: 'x' },
        claude2: { kind: 'generic', command: 'x' },
        claude3: { kind: 'generic', command: 'x' },
      },
      directions: {
        c1_to_c2: ['claude1', 'claude2'],
        c2_to_c3: ['claude2', 'claude3'],
        c3_to_c1: ['claude3', 'claude1'],
        c1_to_c3: ['claude1', 'claude3'],
      },
      turns: { policy: 'round_robin' },
      inbox: { max_bytes: 2048, settle_ms: 300 },
    });
    const big = await p.cli(['post', '--as', 'claude2', 'x'.repeat(3000)]);
    expect(big.exitCode).toBe(2);
    expect(big.stderr).toMatch(/not posted: \d+ bytes is over inbox\.max_bytes \(2048\)/);
    const skip = await p.cli(['post', '--as', 'claude1', '--to', 'claude3', 'claude3, not claude2']);
    expect(skip.exitCode).toBe(2);
    expect(skip.stderr).toContain('under the round_robin policy claude1 must send to claude2, not claude3');
    const nobody = await p.cli(['post', '--as', 'claude1', '--to', 'nobody', 'hello?']);
    expect(nobody.exitCode).toBe(2);
    expect(nobody.stderr).toContain('there is no such agent (agents: claude1, claude2, claude3)');
    for (const d of ['c1_to_c2', 'c2_to_c3', 'c3_to_c1', 'c1_to_c3']) expect(p.ls(d)).toEqual([]);
    // Just under the limit: posted.
    const fits = await p.cli(['post', '--as', 'claude2', 'x'.repeat(1500)]);
    expect(fits.exitCode, fits.stderr).toBe(0);
    expect(p.ls('c2_to_c3')).toHaveLength(1);
  });
});

describe('post --wait', () => {
  it('follows its own message, whatever the archive says: a person deleted the newest record', async () => {
    p = new Project();
    await p.recorder('claude1');
    await p.recorder('claude2', { reply: true }); // answers each message through baton post
    await p.startDaemon();
    const first = await p.cli(['post', '--as', 'claude1', '--wait', '--timeout', '20', 'first']);
    expect([first.exitCode, first.stdout.trim()], first.stderr).toEqual([0, 'msg_0001']);
    await waitFor('msg_0002 (the reply) delivered', () => p!.archive()[1]?.delivered_at);
    rmSync(p.path('archive', 'msg_0002.json')); // the newest record, by hand
    const next = await p.cli(['post', '--as', 'claude1', '--wait', '--timeout', '20', 'after the deletion']);
    expect(next.stderr).toBe('');
    expect([next.exitCode, next.stdout.trim()]).toEqual([0, 'msg_0003']);
    expect(readJson(p.path('archive', 'msg_0003.json'))).toMatchObject({ content: 'after the deletion' });
  }, 60_000);
});

describe('post → delivery, and status --json', () => {
  it('status before any daemon; a posted message delivered; held and rejected counted; human status', async () => {
    p = new Project();
    const s0 = await status(p);
    for (const k of [
      'current_turn',
      'message_counter',
      'last_message_id',
      'pending_reply_to',
      'held',
      'rejected',
      'daemon',
      'agents',
    ]) {
      expect(s0).toHaveProperty(k);
    }
    expect([null, 'claude1']).toContain(s0.current_turn);
    expect(s0).toMatchObject({
      message_counter: 0,
      last_message_id: null,
      pending_reply_to: null,
      held: { c1_to_c2: 0, c2_to_c1: 0 },
      rejected: 0,
    });
    expect(s0.daemon).toEqual({ running: false, pid: null });
    for (const a of ['claude1', 'claude2']) {
      expect(s0.agents[a]!.alive).toBe(false);
      expect(s0.agents[a]!.target).toContain(a);
    }

    await p.recorder('claude1');
    await p.recorder('claude2', { reply: true }); // answers through `baton post`, like an agent
    const { proc } = await p.startDaemon();
    expect(proc.exitCode).toBeNull();

    const posted = await p.cli(['post', '--as', 'claude1', 'hello over the wire']);
    expect(posted.exitCode, posted.stderr).toBe(0);
    await waitFor(
      'msg_0001 delivered',
      () =>
        existsSync(p!.path('archive', 'msg_0001.json')) && readJson(p!.path('archive', 'msg_0001.json')).delivered_at,
    );
    const first = readJson(p.path('archive', 'msg_0001.json'));
    expect(first).toMatchObject({
      id: 'msg_0001',
      reply_to: null,
      sender: 'claude1',
      receiver: 'claude2',
      content: 'hello over the wire',
      type: 'message',
    });
    expect(typeof first.delivered_at).toBe('string');
    expect(existsSync(posted.stdout.trim())).toBe(false); // taken out of the inbox

    // claude2's recorder answered with `baton post`; that reply is delivered back with reply_to msg_0001.
    await waitFor('msg_0002 delivered', () => p!.archive()[1]?.delivered_at);
    expect(p.archive()[1]).toMatchObject({
      id: 'msg_0002',
      reply_to: 'msg_0001',
      sender: 'claude2',
      receiver: 'claude1',
      content: 'reply to msg_0001',
    });

    const s1 = await status(p);
    expect(s1).toMatchObject({
      current_turn: 'claude1',
      message_counter: 2,
      last_message_id: 'msg_0002',
      pending_reply_to: 'msg_0002',
      rejected: 0,
    });
    expect(s1.held).toEqual({ c1_to_c2: 0, c2_to_c1: 0 });
    expect(s1.daemon).toEqual({ running: true, pid: proc.pid });
    expect(s1.agents.claude1!.alive).toBe(true);
    expect(s1.agents.claude2!.alive).toBe(true);

    // claude2 speaks out of turn: held, and counted.
    p.send('c2_to_c1', 'early.json', { content: 'out of turn' });
    await waitFor('held event', () => p!.events().find((e) => e.event === 'held' && e.file === 'early.json'));
    const s2 = await status(p);
    expect(s2.held).toEqual({ c1_to_c2: 0, c2_to_c1: 1 });
    expect(s2.current_turn).toBe('claude1');

    // A file that never parses is rejected after settle_ms, and counted; the held file stays held.
    p.send('c1_to_c2', 'broken.json', '{"content": "no end');
    await waitFor('rejected', () => existsSync(p!.path('rejected', 'broken.json.error.json')), 10_000);
    const s3 = await status(p);
    expect(s3.rejected).toBe(1);
    expect(s3.held).toEqual({ c1_to_c2: 0, c2_to_c1: 1 });
    expect(s3.message_counter).toBe(2);

    const human = await p.cli(['status']);
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/turn/i);
    expect(human.stdout).toContain('claude1');
    expect(human.stdout).toContain(String(proc.pid));
    expect(() => JSON.parse(human.stdout)).toThrow();
  });
});

describe('up and down', () => {
  const agentsConfig = (command: string) => ({
    message_dir: './messages',
    agents: {
      claude1: { kind: 'claude', cwd: './agents/claude1', command },
      claude2: { kind: 'claude', cwd: './agents/claude2', command },
    },
    directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    first_turn: 'claude1',
    turns: { policy: 'alternate', max_turns: 0, timeout_s: 0 },
    inbox: { max_bytes: 1048576, settle_ms: 1000 },
    delivery: { enter_delay_ms: 50 },
  });

  it('up --demo runs a real alternating conversation; down stops the daemon and the sessions', async () => {
    p = new Project();
    p.env.BATON_DAEMON = 'conversation'; // the former daemon per conversation, in the "watcher" session
    p.writeConfig(agentsConfig('claude'));
    const up = await p.cli(['up', '--demo'], { env: { BATON_DEMO_DELAY_MS: '100', BATON_DEMO_TURNS: '6' } });
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
    expect(up.stdout).toMatch(/attach/);
    expect(existsSync(p.path('state.json'))).toBe(true);

    await waitFor('4 delivered demo messages', () => p!.archive().filter((r) => r.delivered_at).length >= 4, 30_000);
    const delivered = p.archive().filter((r) => r.delivered_at);
    delivered.forEach((r, i) => {
      expect(r.id).toBe(`msg_${String(i + 1).padStart(4, '0')}`);
      expect(r.reply_to).toBe(i === 0 ? null : delivered[i - 1]!.id);
      expect(r.sender).toBe(i % 2 ? 'claude2' : 'claude1');
      expect(r.receiver).toBe(i % 2 ? 'claude1' : 'claude2');
      expect(r.content.length).toBeGreaterThan(0);
    });

    const s = await status(p);
    expect(s.daemon.running).toBe(true);
    expect(typeof s.daemon.pid).toBe('number');
    expect(s.agents.claude1!.alive).toBe(true);
    expect(s.agents.claude2!.alive).toBe(true);
    expect((await p.tmux(['has-session', '-t', '=watcher'])).exitCode).toBe(0);
    // The agents run in their configured cwd, created by up.
    expect(existsSync(join(p.dir, 'agents', 'claude1'))).toBe(true);

    // up again leaves everything running alone.
    const again = await p.cli(['up', '--demo'], { env: { BATON_DEMO_DELAY_MS: '100', BATON_DEMO_TURNS: '6' } });
    expect(again.exitCode, again.stderr).toBe(0);
    expect((await status(p)).daemon.pid).toBe(s.daemon.pid);

    const down = await p.cli(['down']);
    expect(down.exitCode, `${down.stdout}\n${down.stderr}`).toBe(0);
    const after = await status(p);
    expect(after.daemon.running).toBe(false);
    expect(after.agents.claude1!.alive).toBe(false);
    expect(after.agents.claude2!.alive).toBe(false);
    for (const s of ['claude1', 'claude2', 'watcher'])
      expect((await p.tmux(['has-session', '-t', `=${s}`])).exitCode, s).not.toBe(0);
    // The daemon's process is really gone (it may take a moment to exit after releasing its lock).
    const gone = (pid: number) => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    };
    await waitFor('daemon process gone', () => gone(s.daemon.pid!), 3000);
    // The conversation stays on disk.
    expect(p.archive().length).toBeGreaterThanOrEqual(4);
    expect(p.events().some((e) => e.event === 'stopped')).toBe(true);
  });

  it('up without --demo and an agent command that is not installed: exit 1, points at --demo, starts nothing', async () => {
    p = new Project();
    p.writeConfig(agentsConfig('definitely-not-installed-xyz --flag'));
    const up = await p.cli(['up']);
    expect(up.exitCode).toBe(1);
    const said = `${up.stdout}\n${up.stderr}`;
    expect(said).toContain('--demo');
    expect(said).toContain('definitely-not-installed-xyz');
    for (const s of ['claude1', 'claude2', 'watcher'])
      expect((await p.tmux(['has-session', '-t', `=${s}`])).exitCode, s).not.toBe(0);
    expect((await p.tmux(['list-sessions'])).stdout).toBe('');
    expect((await status(p)).daemon.running).toBe(false);
  });

  it('two conversations share a tmux server without touching each other; a stopped demo picks up again', async () => {
    p = new Project();
    p.env.BATON_DAEMON = 'conversation'; // the former daemon per conversation, in the "watcher" session
    p.writeConfig(agentsConfig('claude'));
    const env = { BATON_DEMO_DELAY_MS: '100', BATON_DEMO_TURNS: '100' };
    expect((await p.cli(['up', '--demo'], { env })).exitCode).toBe(0);

    // A second conversation may not adopt the first one's agent sessions.
    const b = join(p.dir, 'b.json');
    const runB = (args: string[]) =>
      execa('node', [CLI, '--config', b, ...args], { env: { ...p!.env, ...env }, reject: false, cwd: p!.dir });
    writeFileSync(b, JSON.stringify({ ...agentsConfig('claude'), message_dir: './messages-b' }));
    const clash = await runB(['up', '--demo']);
    expect(clash.exitCode).toBe(1);
    expect(clash.stderr).toMatch(/belongs to another baton conversation/);
    // What it suggests instead is free (it once suggested the very name that collided), one for each agent.
    const suggested = [...clash.stderr.matchAll(/"session": "([^"]+)"/g)].map((m) => m[1]!);
    const running = (await p.tmux(['list-sessions', '-F', '#{session_name}'])).stdout.split('\n');
    expect(suggested).toHaveLength(2);
    expect(new Set(suggested).size).toBe(2);
    for (const name of suggested) expect(running).not.toContain(name);

    // With its own session names it runs beside the first, its daemon in a watcher-<folder> session.
    writeFileSync(
      b,
      JSON.stringify({
        message_dir: './messages-b',
        agents: { b1: { kind: 'claude', command: 'claude' }, b2: { kind: 'claude', command: 'claude' } },
        delivery: { enter_delay_ms: 50 },
      }),
    );
    const upB = await runB(['up', '--demo']);
    expect(upB.exitCode, `${upB.stdout}\n${upB.stderr}`).toBe(0);
    const archivedB = () =>
      existsSync(join(p!.dir, 'messages-b', 'archive')) ? readdirSync(join(p!.dir, 'messages-b', 'archive')).length : 0;
    await waitFor('both conversations move', () => archivedB() >= 3 && p!.archive().length >= 3, 30_000);
    const sessions = (await p.tmux(['list-sessions', '-F', '#{session_name}'])).stdout.split('\n').sort();
    expect(sessions.filter((s) => s.startsWith('watcher'))).toHaveLength(2);

    // down for B leaves A running.
    expect((await runB(['down'])).exitCode).toBe(0);
    const a = await status(p);
    expect(a.daemon.running).toBe(true);
    expect(a.agents.claude1!.alive && a.agents.claude2!.alive).toBe(true);
    expect((await p.tmux(['has-session', '-t', '=b1'])).exitCode).not.toBe(0);

    // B again: the demo agent holding the turn picks the conversation up where it stopped.
    const before = archivedB();
    expect((await runB(['up', '--demo'])).exitCode).toBe(0);
    await waitFor('B continues', () => archivedB() >= before + 2, 30_000);
  });

  it("a person's own session named watcher is neither replaced by up nor killed by down", async () => {
    p = new Project();
    p.env.BATON_DAEMON = 'conversation'; // the former daemon per conversation, in the "watcher" session
    p.writeConfig(agentsConfig('claude'));
    await p.tmux(['new-session', '-d', '-s', 'watcher', 'sleep 600']);
    const up = await p.cli(['up', '--demo'], { env: { BATON_DEMO_DELAY_MS: '100', BATON_DEMO_TURNS: '4' } });
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/tmux attach -t watcher-/);
    await waitFor('delivered', () => p!.archive()[1]?.delivered_at, 20_000);
    expect((await p.cli(['down'])).exitCode).toBe(0);
    expect((await p.tmux(['has-session', '-t', '=watcher'])).exitCode).toBe(0);
    expect((await p.tmux(['list-sessions', '-F', '#{session_name}'])).stdout.trim()).toBe('watcher');
  });

  it("attach daemon (or watcher, its old name) finds the daemon: the machine's in baton-daemon, or the conversation's own", async () => {
    p = new Project();
    p.writeConfig(agentsConfig('claude'));
    const env = { BATON_DEMO_DELAY_MS: '100', BATON_DEMO_TURNS: '4' };
    expect((await p.cli(['up', '--demo'], { env })).exitCode).toBe(0);
    // No terminal here, so tmux cannot attach: that it tried the right session is what it says. "attach watcher"
    // (in the help and the docs) once failed: no tmux session "watcher" — the daemon had moved to baton-daemon.
    for (const name of ['daemon', 'watcher']) {
      const r = await p.cli(['attach', name]);
      expect([r.exitCode, r.stderr], name).toEqual([
        1,
        expect.stringContaining('cannot attach to the daemon\'s session "baton-daemon": '),
      ]);
    }
    expect((await p.cli(['down'])).exitCode).toBe(0);
    const none = await p.cli(['attach', 'daemon']);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain(
      'no daemon runs for this conversation on this machine; start the conversation with: baton up',
    );

    // A daemon of the conversation's own (BATON_DAEMON=conversation) is in its watcher session.
    p.env.BATON_DAEMON = 'conversation';
    expect((await p.cli(['up', '--demo'], { env })).exitCode).toBe(0);
    const own = await p.cli(['attach', 'daemon']);
    expect(own.stderr).toContain('cannot attach to the daemon\'s session "watcher": ');
    expect((await p.cli(['down'])).exitCode).toBe(0);
  });

  it('down with nothing running exits 0', async () => {
    p = new Project();
    mkdirSync(p.messages, { recursive: true });
    const down = await p.cli(['down']);
    expect(down.exitCode, down.stderr).toBe(0);
  });
});
