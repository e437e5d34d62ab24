/**
 * End to end with the real Claude Code client: two Claude Code 2.1.197 TUIs (`claude1`, `claude2`, kind
 * `claude`) in panes of a private tmux server, under the real baton daemon, each talking to its own
 * local mock of the Messages API (./mock-anthropic.ts). The mock answers each baton message with a
 * `Bash` tool call that replies through `baton post`; Claude Code really runs it, so every message of
 * the conversation is written by a real Claude Code agent, carried by baton, and typed into the other
 * real TUI.
 *
 * Claude Code is installed on demand by scripts/agent-cli.mjs (cache: .cache/claude-code-2.1.197, or
 * $BATON_AGENT_CACHE). If that install fails, this test fails: it never skips.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { render, replyHint, userHint } from '../../src/core/compose.js';
import type { Config } from '../../src/config/config.js';
import { installClaudeHooks } from '../../src/terminal/hooks/claude-settings.js';
import { spoolDir } from '../../src/terminal/hooks/spool.js';
import { alive, CLI, Project, waitFor } from '../helpers/harness.js';
import { claudeAgent, declareEnv, installClient, VERSIONS } from './clients.js';
import { MockAnthropic, shq, type LoggedRequest } from './mock-anthropic.js';
import { enterToReceipt, spread, tally } from './report.js';

const VERSION = VERSIONS.claude; // 2.1.197, or $BATON_CLAUDE_VERSION
const AGENTS = ['claude1', 'claude2'] as const;
type Name = (typeof AGENTS)[number];

// ── The conversation ────────────────────────────────────────────────────────────────────────────────
// CONTENT[n - 1] is what the agent writes as msg_000n (claude1 the odd ones, claude2 the even ones),
// through a real `baton post` run by Claude Code's Bash tool.

const BIG = Array.from(
  { length: 340 },
  (_, i) => `line ${String(i + 1).padStart(3, '0')} of the 20 KB message, ${'abcdefghij'.repeat(3)}\n`,
).join('');
const CONTROL =
  'reply to msg_0004 with control bytes: ETX\x03\x03 SUB\x1a NUL\x00 fake paste end \x1b[201~ CR\rCRLF\r\n' +
  'SGR \x1b[31mred\x1b[0m BEL\x07 DEL\x7f C1-CSI\u009b2J TABS\tx\tyz\tend';
const CONTENT = [
  /* 1  claude1 */ 'Hello claude2! claude1 here, opening the baton end-to-end conversation.',
  /* 2  claude2 */ `reply to msg_0001: it's "quoted", has $HOME and \`backticks\`, a \\ backslash, ünïcödé and 🎉, all literal`,
  /* 3  claude1 */ BIG,
  /* 4  claude2 */ '/clear reply to msg_0003: this starts with a slash command and must arrive as plain text',
  /* 5  claude1 */ CONTROL,
  /* 6  claude2 */ '!touch PWNED\nreply to msg_0005: the line above starts with "!", this one ends with a backslash \\\n/clear\n',
  /* 7  claude1 */ 'reply to msg_0006: claude2 is still busy when this arrives',
  /* 8  claude2 */ 'reply to msg_0007: got it after my busy turn',
  /* 9  claude1 */ `${Array.from({ length: 10 }, (_, i) => `reply to msg_0008, line ${i + 1} of 10`).join('\n')}\n`,
  /* 10 claude2 */ `reply to msg_0009: one long line, ${'word '.repeat(200).trim()}`,
  /* 11 claude1 */ 'reply to msg_0010: sent by a busy claude1 that a person wrote to meanwhile',
  /* 12 claude2 */ 'reply to msg_0011: that was turn 12, the last one. Goodbye!',
];
const N = CONTENT.length;
const KICKOFF = 'please open the conversation with claude2';
const NOTE_A = 'a note from a person while claude2 is busy finishing its turn';
const NOTE_B = 'a note from a person while claude1 is busy calling a tool';
/** How long an input box may hold typed text (or be missing) before the test calls it stuck. */
const STUCK_MS = 10_000;
const id = (n: number) => `msg_${String(n).padStart(4, '0')}`;

/** The post each incoming message gets: user_0001 (the kick-off) → msg_0001, msg_000n → msg_000(n+1). */
function replyTo(incoming: string): number | null {
  if (incoming === 'user_0001') return 1;
  const m = /^msg_(\d+)$/.exec(incoming);
  const n = m ? Number(m[1]) + 1 : 0;
  return n >= 2 && n <= N ? n : null;
}

// ── Claude Code in a pane ───────────────────────────────────────────────────────────────────────────

const installClaude = (): string => installClient('claude');

/**
 * A private HOME that lets Claude Code start without a dialog, in bypass mode, talking only to the mock —
 * named in the agent's config `env` too, as a user's would be: the daemon reads a Claude Code transcript
 * (a turn's tokens) only under that agent's own ~/.claude/projects/.
 */
const agentEnv = (p: Project, name: Name, mock: MockAnthropic) => {
  const agent = claudeAgent(p.dir, p.configFile, name, mock.url);
  declareEnv(p, name, { HOME: agent.env.HOME! });
  return agent;
};

/** What a Claude Code screen shows: its input box (and what is typed in it), and whether a turn runs. */
interface Screen {
  text: string;
  box: boolean;
  input: string;
  busy: boolean;
  ready: boolean;
}

const BORDER = /^─{20,}\s*$/;
const SPINNER = /^[·✢✳✶✻✽*] \S.*…/;

function readScreen(text: string): Screen {
  const lines = text.split('\n');
  // The input box: a ❯ line right under a border line, down to the next border line.
  let top = -1;
  for (let i = lines.length - 2; i >= 0; i--) {
    if (BORDER.test(lines[i]!) && lines[i + 1]!.startsWith('❯')) {
      top = i;
      break;
    }
  }
  const bottom = top < 0 ? -1 : lines.findIndex((l, i) => i > top && BORDER.test(l));
  if (top < 0 || bottom < 0) return { text, box: false, input: '', busy: false, ready: false };
  const input = lines
    .slice(top + 1, bottom)
    .map((l, i) => (i === 0 ? l.replace(/^❯[\s\u00a0]?/, '') : l.replace(/^ {2}/, '')))
    .join('\n')
    .trim();
  const busy =
    lines.slice(0, top).some((l) => SPINNER.test(l)) || lines.slice(bottom).some((l) => l.includes('esc to interrupt'));
  return { text, box: true, input, busy, ready: input === '' || input === 'Press up to edit queued messages' };
}

/**
 * What Claude Code 2.1.197 makes of typed text before the model gets it: a TAB becomes four spaces
 * (its input box does this to pasted text). Anything else must arrive as baton typed it.
 */
const asClaudeCodeSends = (typed: string) => typed.replace(/\t/g, '    ');

// ── The test ────────────────────────────────────────────────────────────────────────────────────────

let claude = '';
let installError: unknown = null;
let p: Project | undefined;
const mocks: Partial<Record<Name, MockAnthropic>> = {};

afterEach(async () => {
  for (const m of Object.values(mocks)) await m?.close();
  for (const a of AGENTS) delete mocks[a];
  if (!p) return;
  // Only this test's tmux server (p.tmux and p.stop() reach it through its own TMUX_TMPDIR): kill it,
  // let the Claude Code processes of its panes exit (they write to their HOMEs on the way out), and only
  // then let p.stop() remove the project folder.
  const pids = (await p.tmux(['list-panes', '-a', '-F', '#{pane_pid}'])).stdout.split('\n').filter(Boolean).map(Number);
  await p.killServer();
  await waitFor('Claude Code to exit', () => pids.every((pid) => !alive(pid)), 15_000).catch(() => {});
  await p.stop();
  p = undefined;
});

describe(`real Claude Code ${VERSION} agents under the baton daemon`, () => {
  // A test of its own (not a hook, whose failure would only skip the test): a failed install fails
  // this test and the next one, in CI and locally. The first install downloads ~250 MB.
  it(
    `installs @anthropic-ai/claude-code@${VERSION} on demand (scripts/agent-cli.mjs)`,
    () => {
      try {
        claude = installClaude();
      } catch (err) {
        installError = err;
        throw err;
      }
      expect(execFileSync(claude, ['--version'], { encoding: 'utf8' })).toContain(VERSION);
    },
    15 * 60_000,
  );

  it(`hold a ${N}-turn conversation through baton: 20 KB, /clear, control bytes, messages to a busy agent`, async () => {
    if (!claude)
      throw new Error(`Claude Code ${VERSION} is not installed (see the test above): ${String(installError)}`);
    const started = Date.now();
    const trace: string[] = [];
    const note = (line: string) => trace.push(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s ${line}`);
    const problems: string[] = [];
    const windows: Record<'A' | 'B', { start: number; end: number; screen: Screen } | undefined> = {
      A: undefined,
      B: undefined,
    };

    const project = (p = new Project({
      message_dir: './messages',
      agents: Object.fromEntries(
        AGENTS.map((a) => [
          a,
          { kind: 'claude', cwd: `./agents/${a}`, command: `${shq(claude)} --dangerously-skip-permissions` },
        ]),
      ),
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      first_turn: 'claude1',
      turns: { policy: 'alternate', max_turns: 0, timeout_s: 0 },
      inbox: { max_bytes: 1048576, settle_ms: 1000 },
      delivery: { enter_delay_ms: Number(process.env.BATON_E2E_ENTER_DELAY_MS ?? 200) },
    }));
    const screen = async (name: Name) =>
      readScreen((await project.tmux(['capture-pane', '-p', '-t', `=${name}:`])).stdout);

    // Case A: claude2's model keeps its last answer of the turn that posted msg_0006 open while a person
    // writes to claude2 and claude1's msg_0007 arrives: both are typed into a busy Claude Code.
    const holdA = async () => {
      const start = Date.now();
      note('claude2 busy (held): baton send --to claude2, then waiting for msg_0007');
      const sent = await project.cli(['send', '--to', 'claude2', NOTE_A]);
      if (sent.exitCode !== 0) problems.push(`baton send --to claude2 failed: ${sent.stdout}${sent.stderr}`);
      await waitFor(
        'msg_0007 delivered',
        () => project.archive().find((r) => r.id === id(7))?.delivered_at,
        90_000,
        100,
      );
      await sleep(1500);
      windows.A = { start, end: Date.now(), screen: await screen('claude2') };
      note('claude2 released');
    };
    // Case B: claude1's model streams its tool call (the reply to msg_0010) slowly, and a person writes
    // to claude1 meanwhile: the note rides along with the tool result.
    const holdB = async () => {
      const start = Date.now();
      note('claude1 busy (held): baton send --to claude1');
      const sent = await project.cli(['send', '--to', 'claude1', NOTE_B]);
      if (sent.exitCode !== 0) problems.push(`baton send --to claude1 failed: ${sent.stdout}${sent.stderr}`);
      await sleep(1500);
      windows.B = { start, end: Date.now(), screen: await screen('claude1') };
      note('claude1 released');
    };

    for (const name of AGENTS) {
      let held = false;
      const mock = await MockAnthropic.start({
        name,
        log: note,
        onMessage: (d) => {
          const n = replyTo(d.id);
          if (n !== null) return { post: CONTENT[n - 1]! };
          return { say: d.id === id(N) ? 'The conversation is complete.' : 'Noted, thank you.' };
        },
        hold: async (req: LoggedRequest) => {
          if (held || req.kind !== 'turn') return;
          const prev = mocks[name]!.turns()
            .filter((r) => r.seq < req.seq)
            .at(-1);
          const caseA = name === 'claude2' && req.toolResults?.length && prev?.delivered?.some((d) => d.id === id(5));
          const caseB = name === 'claude1' && req.delivered?.some((d) => d.id === id(10));
          if (!caseA && !caseB) return;
          held = true;
          try {
            await (caseA ? holdA() : holdB());
          } catch (err) {
            problems.push(`while ${name} was held: ${String(err)}`);
          }
        },
      });
      mocks[name] = mock;
      const { cwd, env } = agentEnv(project, name, mock);
      // A clean environment (nothing of the caller's leaks in), TERM as tmux set it for the pane.
      const cmd = `exec env -i TERM="$TERM" ${Object.entries(env)
        .map(([k, v]) => `${k}=${shq(v)}`)
        .join(' ')} ${shq(claude)} --dangerously-skip-permissions`;
      const r = await project.tmux(['new-session', '-d', '-s', name, '-x', '200', '-y', '50', '-c', cwd, cmd]);
      if (r.exitCode !== 0) throw new Error(`new-session ${name}: ${r.stderr}`);
    }

    try {
      // Both TUIs up, showing an empty input box (no dialog), before baton may type into them.
      for (const name of AGENTS) {
        await waitFor(`${name}'s prompt box`, async () => (await screen(name)).ready, 90_000, 250);
        note(`${name} ready`);
      }
      await project.startDaemon();
      const kick = await project.cli(['send', '--to', 'claude1', KICKOFF]);
      expect(kick.exitCode, kick.stdout + kick.stderr).toBe(0);

      // The conversation runs on its own; it is over when claude1's model has answered msg_0012. Meanwhile
      // an input box that keeps holding typed text (a lost Enter), or no input box at all (a dialog),
      // fails the test at once, naming what the pane shows.
      const stuckSince: Partial<Record<Name, number>> = {};
      await waitFor(
        `claude1's model to answer ${id(N)}`,
        async () => {
          if (problems.length) throw new Error(problems.join('\n'));
          for (const name of AGENTS) {
            const s = await screen(name);
            if (s.ready) delete stuckSince[name];
            else if (Date.now() - (stuckSince[name] ??= Date.now()) > STUCK_MS) {
              throw new Error(
                s.box
                  ? `${name}'s input box still holds typed text after ${STUCK_MS / 1000} s (Enter lost?): ${JSON.stringify(s.input.slice(0, 200))}`
                  : `${name}'s screen shows no input box for ${STUCK_MS / 1000} s (a dialog?)`,
              );
            }
          }
          return mocks.claude1!.turns().some((r) => r.answeredAt && r.delivered?.some((d) => d.id === id(N)));
        },
        240_000,
        250,
      );
      note('conversation done');
      for (const name of AGENTS)
        await waitFor(`${name} idle`, async () => ((s) => s.ready && !s.busy)(await screen(name)), 30_000, 250);
      // The daemon stamps delivered_at once it has seen the submit on screen, which can be after the
      // model already answered: wait for the last stamp and its event.
      await waitFor(
        'every delivery stamped',
        () =>
          project.archive().filter((r) => r.delivered_at).length === N &&
          project.events().filter((e) => e.event === 'delivered').length === N,
        15_000,
        100,
      );
      expect(problems).toEqual([]);

      // ── baton's archive: N messages, IDs 1..N, a reply_to chain, alternating senders, content as written
      const archive = project.archive();
      expect(archive.map((r) => r.id)).toEqual(Array.from({ length: N }, (_, i) => id(i + 1)));
      archive.forEach((r, i) => {
        expect(r.reply_to, r.id).toBe(i === 0 ? null : id(i));
        expect(r.sender, r.id).toBe(i % 2 === 0 ? 'claude1' : 'claude2');
        expect(r.receiver, r.id).toBe(i % 2 === 0 ? 'claude2' : 'claude1');
        expect(r.content, r.id).toBe(CONTENT[i]);
        expect(r.delivered_at, r.id).toBeTruthy();
        expect(r.redelivered, r.id).toBeUndefined();
        // The claude kind's submit confirmation read the real screen (a second Enter is allowed: baton's remedy).
        if ('confirmed' in r)
          expect(['screen', 'screen_after_second_enter'], `${r.id} confirmed`).toContain(r.confirmed);
      });
      expect(Buffer.byteLength(archive[2]!.content)).toBeGreaterThanOrEqual(20 * 1024);
      const users = readdirSync(project.path('archive'))
        .filter((n) => /^user_\d+\.json$/.test(n))
        .sort()
        .map((n) => JSON.parse(readFileSync(project.path('archive', n), 'utf8')) as (typeof archive)[number]);
      expect(users.map((u) => [u.id, u.receiver, u.content])).toEqual([
        ['user_0001', 'claude1', KICKOFF],
        ['user_0002', 'claude2', NOTE_A],
        ['user_0003', 'claude1', NOTE_B],
      ]);
      expect(users.every((u) => u.delivered_at)).toBe(true);
      expect(project.state()).toMatchObject({
        current_turn: 'claude1',
        message_counter: N,
        last_message_id: id(N),
        pending_reply_to: id(N),
      });
      expect([...project.ls('c1_to_c2'), ...project.ls('c2_to_c1'), ...project.ls('rejected')]).toEqual([]);
      const bad = project
        .events()
        .filter((e) => ['rejected', 'delivery_failed', 'redelivered', 'pane_unavailable'].includes(e.event));
      expect(bad).toEqual([]);

      // ── what each model received: every message meant for its agent exactly once, in order, as baton typed it
      const rules = { turns: { policy: 'alternate' }, order: [...AGENTS] } as unknown as Pick<
        Config,
        'turns' | 'order'
      >;
      const at = (r: { delivered_at: string | null }) => Date.parse(r.delivered_at ?? '');
      for (const name of AGENTS) {
        const mine = [...archive, ...users].filter((r) => r.receiver === name).sort((a, b) => at(a) - at(b));
        const got = mocks[name]!.received();
        expect(
          got.map((d) => d.id),
          `${name} received`,
        ).toEqual(mine.map((r) => r.id));
        mine.forEach((r, i) => {
          const env = {
            id: r.id,
            from: r.sender as string,
            to: name,
            reply_to: r.reply_to,
            type: (r.type as string | undefined) ?? 'message',
            content: r.content,
          };
          const typed = (
            r.id.startsWith('user_')
              ? AGENTS.map((turn) => render(env, undefined, userHint({ current_turn: turn })))
              : [render(env, undefined, replyHint(rules, name))]
          ).map(asClaudeCodeSends);
          const text = got[i]!.text;
          // On a mismatch, show the difference from the (first) expected form.
          expect(text, `${name} received ${r.id} intact`).toBe(typed.includes(text) ? text : typed[0]);
        });
      }

      // ── the busy deliveries really went into a busy Claude Code, and it queued them
      expect(windows.A && windows.B).toBeTruthy();
      const during = (w: { start: number; end: number } | undefined, rid: string) => {
        const r = [...archive, ...users].find((x) => x.id === rid)!;
        return !!w && at(r) >= w.start && at(r) <= w.end;
      };
      expect(during(windows.A, 'user_0002'), 'user_0002 typed while claude2 was busy').toBe(true);
      expect(during(windows.A, id(7)), `${id(7)} typed while claude2 was busy`).toBe(true);
      expect(during(windows.B, 'user_0003'), 'user_0003 typed while claude1 was busy').toBe(true);
      expect(windows.A!.screen.text).toContain('Press up to edit queued messages');
      expect(windows.B!.screen.text).toContain('Press up to edit queued messages');

      // ── nothing typed ran as a command: no /clear (the whole conversation is still in the last request), no "!"
      for (const name of AGENTS) {
        expect(existsSync(join(project.dir, 'agents', name, 'PWNED')), `${name}: "!touch PWNED" ran`).toBe(false);
        const last = mocks[name]!.requests.filter((r) => r.kind === 'turn').at(-1)!;
        const history = JSON.stringify((last.body as { messages: unknown[] }).messages);
        for (const r of archive.filter((x) => x.receiver === name))
          expect(history, `${name}'s history has ${r.id}`).toContain(`[baton] ${r.id} from`);
      }
      // Every reply command ran, once, as `baton post` of that agent (BATON_AGENT reached the Bash tool):
      // its output is the file it wrote into the agent's outgoing folder.
      for (const name of AGENTS) {
        const results = mocks[name]!.turns().flatMap((r) => r.toolResults ?? []);
        const folder = name === 'claude1' ? 'c1_to_c2' : 'c2_to_c1';
        expect(
          results.map((t) =>
            t.is_error ? `error: ${t.text}` : t.text.replace(/^.*\/messages\/([^/]+)\/msg_\d+\.json$/s, '$1'),
          ),
          `${name}'s tool results`,
        ).toEqual(Array(N / 2).fill(folder));
      }
      // Case B's note reached claude1's model with the tool result of the call it interrupted.
      const withNote = mocks.claude1!.turns().find((r) => r.delivered?.some((d) => d.id === 'user_0003'));
      expect(withNote?.toolResults?.length, 'user_0003 rode along with a tool result').toBe(1);

      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      note(`done in ${seconds} s`);
      console.log(
        `[e2e] ${N} turns with real Claude Code ${VERSION} in ${seconds} s; events: ${tally(project.events().map((e) => e.event))}; ` +
          `submits confirmed: ${tally(archive.map((r) => r.confirmed))}`,
      );
    } catch (err) {
      // What the panes showed and what the mocks saw, to tell a baton problem from a test problem.
      const dump: string[] = [`── trace`, ...trace];
      for (const name of AGENTS) {
        const full = await project.tmux(['capture-pane', '-p', '-S', '-60', '-t', `=${name}:`]);
        dump.push(`── ${name}'s pane`, full.stdout.replace(/\n+$/, ''));
      }
      dump.push(
        '── events',
        ...project
          .events()
          .slice(-40)
          .map((e) => JSON.stringify(e)),
      );
      dump.push(
        '── archive',
        ...project
          .archive()
          .map(
            (r) =>
              `${r.id} ${String(r.sender)} → ${String(r.receiver)} delivered_at ${r.delivered_at} confirmed ${String(r.confirmed)}`,
          ),
      );
      const saved = join(tmpdir(), `baton-e2e-${Date.now()}.json`);
      writeFileSync(
        saved,
        JSON.stringify({ trace, requests: Object.fromEntries(AGENTS.map((a) => [a, mocks[a]?.requests])) }, null, 1),
      );
      dump.push(`── every request the mocks got: ${saved}`);
      console.error(dump.join('\n'));
      throw err;
    }
  }, 300_000);

  // The agents answer in plain text only (no tool call, no baton post); baton reads each turn's
  // final reply from Claude Code's Stop hook and posts it, and each delivery's receipt from its
  // UserPromptSubmit hook.
  const AUTO = [
    'Hello claude2, claude1 opening on the topic: how should a daemon confirm a delivery?',
    `From the screen alone it cannot know. ünïcödé, 🎉, "quotes", $HOME and \`ticks\` stay as written.`,
    BIG.trimEnd(),
    'A receipt from the agent itself is better: the prompt hook sees exactly what the model got.',
    Array.from({ length: 10 }, (_, i) => `point ${i + 1} of 10: keep the hook fast`).join('\n'),
    'Agreed. And the final reply can be the message itself, so no instructions are needed.',
    `A long line: ${'word '.repeat(200).trim()}`,
    'Never two messages for one turn, though.',
    '/clear is just text here, and so is !echo this line.',
    'Then we agree on the design.',
    'Let us write it down.',
    'Done. Goodbye!',
  ];

  it(`reply "auto": ${AUTO.length} turns in plain text, every message posted from the Stop hook and received intact (UserPromptSubmit)`, async () => {
    if (!claude)
      throw new Error(`Claude Code ${VERSION} is not installed (see the first test): ${String(installError)}`);
    const started = Date.now();
    const trace: string[] = [];
    const note = (line: string) => trace.push(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s ${line}`);
    const project = (p = new Project({
      message_dir: './messages',
      agents: Object.fromEntries(
        AGENTS.map((a) => [
          a,
          {
            kind: 'claude',
            cwd: `./agents/${a}`,
            command: `${shq(claude)} --dangerously-skip-permissions`,
            reply: 'auto',
          },
        ]),
      ),
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      first_turn: 'claude1',
      turns: { policy: 'alternate', max_turns: AUTO.length },
      delivery: { enter_delay_ms: Number(process.env.BATON_E2E_ENTER_DELAY_MS ?? 200) },
    }));
    const screen = async (name: Name) =>
      readScreen((await project.tmux(['capture-pane', '-p', '-t', `=${name}:`])).stdout);
    for (const name of AGENTS) {
      const mock = await MockAnthropic.start({
        name,
        log: note,
        // user_0001 (the topic) → AUTO[0]; msg_000n → AUTO[n]; anything after the last: a closing word.
        onMessage: (d) => ({ say: d.id === 'user_0001' ? AUTO[0]! : (AUTO[Number(d.id.slice(4))] ?? 'Thank you.') }),
      });
      mocks[name] = mock;
      const { cwd, env } = agentEnv(project, name, mock);
      // What `baton up` does for a claude agent before starting it (app/up/hooks.ts).
      const installed = await installClaudeHooks({ name, cwd }, spoolDir(project.path(), name), process.execPath, CLI);
      expect(installed.ok).toBe(true);
      const cmd = `exec env -i TERM="$TERM" ${Object.entries(env)
        .map(([k, v]) => `${k}=${shq(v)}`)
        .join(' ')} ${shq(claude)} --dangerously-skip-permissions`;
      const r = await project.tmux(['new-session', '-d', '-s', name, '-x', '200', '-y', '50', '-c', cwd, cmd]);
      if (r.exitCode !== 0) throw new Error(`new-session ${name}: ${r.stderr}`);
    }
    try {
      for (const name of AGENTS)
        await waitFor(`${name}'s prompt box`, async () => (await screen(name)).ready, 90_000, 250);
      await project.startDaemon();
      const kick = await project.cli(['start', 'how should a daemon confirm a delivery?']);
      expect(kick.exitCode, kick.stdout + kick.stderr).toBe(0);
      await waitFor(
        'the conversation to end by max_turns',
        () => (project.state().finished as { reason?: string } | undefined)?.reason === 'max_turns',
        240_000,
        250,
      );
      await waitFor(
        'every receipt',
        () =>
          project.archive().every((r) => (r as { received?: unknown }).received) &&
          project.archive().length === AUTO.length,
        30_000,
        100,
      );

      const archive = project.archive() as Array<
        ReturnType<Project['archive']>[number] & {
          sender: string;
          receiver: string;
          auto?: boolean;
          confirmed?: string;
          received?: { intact: boolean; at: string };
        }
      >;
      expect(archive.map((r) => r.id)).toEqual(AUTO.map((_, i) => id(i + 1)));
      archive.forEach((r, i) => {
        // The model's reply, byte for byte, posted for it.
        expect(r.content, r.id).toBe(AUTO[i]);
        expect(r.auto, r.id).toBe(true);
        expect(r.sender, r.id).toBe(i % 2 === 0 ? 'claude1' : 'claude2');
        expect(r.reply_to, r.id).toBe(i === 0 ? null : id(i));
        expect(r.received?.intact, `${r.id} received intact`).toBe(true);
        expect(r.confirmed, r.id).toBe('hook');
      });
      expect(Buffer.byteLength(archive[2]!.content)).toBeGreaterThanOrEqual(20 * 1024);
      // Each model got each message meant for it once, in order; no agent ran a tool.
      for (const name of AGENTS) {
        const mine = archive.filter((r) => r.receiver === name).map((r) => r.id);
        expect(
          mocks[name]!.received()
            .map((d) => d.id)
            .filter((x) => x.startsWith('msg_')),
          `${name} received`,
        ).toEqual(mine);
        expect(
          mocks[name]!.turns().flatMap((r) => r.toolResults ?? []),
          `${name} ran no tool`,
        ).toEqual([]);
      }
      const received = project.events().filter((e) => e.event === 'received');
      expect(received.every((e) => e.intact === true)).toBe(true);
      expect(project.events().filter((e) => e.event === 'delivery_unconfirmed')).toEqual([]);
      // Each turn's tokens, read from Claude Code's own transcript, recorded on the message that opened it
      // and summed per agent (the mock reports 100 in and 10 out per API request).
      await waitFor(
        'the turns counted',
        () =>
          project
            .archive()
            .slice(0, AUTO.length - 1)
            .every((r) => (r as { turn_tokens?: unknown }).turn_tokens),
        30_000,
        100,
      );
      for (const r of project.archive().slice(0, AUTO.length - 1) as Array<{
        id: string;
        turn_tokens?: { input: number; output: number };
      }>) {
        expect(r.turn_tokens!.input, r.id).toBeGreaterThanOrEqual(100);
        expect(r.turn_tokens!.output, r.id).toBeGreaterThanOrEqual(10);
      }
      // A turn's tokens go on its message first, then into the state's sums: wait for the sums too.
      await waitFor(
        'the sums',
        () => ((project.state().tokens as { total?: number } | undefined)?.total ?? 0) >= 110 * AUTO.length,
        15_000,
        100,
      );
      const tokens = project.state().tokens as { total: number; by_agent: Record<string, number> };
      expect(tokens.by_agent.claude1! + tokens.by_agent.claude2!).toBe(tokens.total);
      const submits = tally(
        project
          .events()
          .filter((e) => e.event === 'delivered')
          .map((e) => e.submit),
      );
      console.log(
        `[e2e] reply "auto": ${AUTO.length} turns with real Claude Code ${VERSION} in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
          `on the record: ${tally(archive.map((r) => r.confirmed))}; submits seen: ${submits}; Enter → receipt: ${spread(enterToReceipt(project.events(), archive))}; tokens ${JSON.stringify(tokens)}`,
      );
    } catch (err) {
      const dump: string[] = ['── trace', ...trace];
      for (const name of AGENTS)
        dump.push(
          `── ${name}'s pane`,
          (await project.tmux(['capture-pane', '-p', '-S', '-40', '-t', `=${name}:`])).stdout.replace(/\n+$/, ''),
        );
      dump.push(
        '── events',
        ...project
          .events()
          .slice(-40)
          .map((e) => JSON.stringify(e)),
      );
      console.error(dump.join('\n'));
      throw err;
    }
  }, 300_000);

  it('reply "both" and max_tokens: an agent that posts its replies forgets once, and baton posts that one for it; the budget ends the conversation', async () => {
    if (!claude)
      throw new Error(`Claude Code ${VERSION} is not installed (see the first test): ${String(installError)}`);
    const project = (p = new Project({
      message_dir: './messages',
      agents: Object.fromEntries(
        AGENTS.map((a) => [
          a,
          {
            kind: 'claude',
            cwd: `./agents/${a}`,
            command: `${shq(claude)} --dangerously-skip-permissions`,
            reply: 'both',
          },
        ]),
      ),
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      first_turn: 'claude1',
      turns: { policy: 'alternate', max_tokens: 1500 },
      delivery: { enter_delay_ms: Number(process.env.BATON_E2E_ENTER_DELAY_MS ?? 200) },
    }));
    const FORGOT = 'claude2 here: I forgot to run baton post, and this is my whole reply.';
    const screen = async (name: Name) =>
      readScreen((await project.tmux(['capture-pane', '-p', '-t', `=${name}:`])).stdout);
    for (const name of AGENTS) {
      // Every message is answered with a `baton post` tool call, except claude2's answer to msg_0001: plain text.
      const mock = await MockAnthropic.start({
        name,
        onMessage: (d) =>
          d.id === 'msg_0001'
            ? { say: FORGOT }
            : d.id.startsWith('msg_') || d.id === 'user_0001'
              ? { post: `${name} answers ${d.id}` }
              : { say: 'Noted.' },
      });
      mocks[name] = mock;
      const { cwd, env } = agentEnv(project, name, mock);
      expect((await installClaudeHooks({ name, cwd }, spoolDir(project.path(), name), process.execPath, CLI)).ok).toBe(
        true,
      );
      const cmd = `exec env -i TERM="$TERM" ${Object.entries(env)
        .map(([k, v]) => `${k}=${shq(v)}`)
        .join(' ')} ${shq(claude)} --dangerously-skip-permissions`;
      const r = await project.tmux(['new-session', '-d', '-s', name, '-x', '200', '-y', '50', '-c', cwd, cmd]);
      if (r.exitCode !== 0) throw new Error(`new-session ${name}: ${r.stderr}`);
    }
    for (const name of AGENTS)
      await waitFor(`${name}'s prompt box`, async () => (await screen(name)).ready, 90_000, 250);
    await project.startDaemon();
    expect((await project.cli(['start', 'a short exchange'])).exitCode).toBe(0);
    await waitFor(
      'the conversation to end by max_tokens',
      () => (project.state().finished as { reason?: string } | undefined)?.reason === 'max_tokens',
      240_000,
      250,
    );
    const archive = project.archive() as Array<
      ReturnType<Project['archive']>[number] & { sender: string; auto?: boolean }
    >;
    expect(archive.length).toBeGreaterThanOrEqual(3);
    // One message per turn: the forgotten reply posted by baton (auto), every other one by the agent itself.
    expect(archive.map((r) => [r.id, r.auto === true])).toEqual(archive.map((r) => [r.id, r.id === 'msg_0002']));
    expect(archive[1]!.content).toBe(FORGOT);
    expect(archive[0]!.content).toBe('claude1 answers user_0001');
    expect(archive[2]!.content).toBe('claude1 answers msg_0002');
    expect((project.state().tokens as { total: number }).total).toBeGreaterThanOrEqual(1500);
    console.log(
      `[e2e] reply "both": ${archive.length} messages, ${archive.filter((r) => r.auto).length} posted for a forgetful agent; finished by max_tokens at ${JSON.stringify(project.state().tokens)}`,
    );
  }, 300_000);
});
