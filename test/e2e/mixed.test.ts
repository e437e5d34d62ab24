/**
 * End to end with the real Codex CLI 0.169.0 and Gemini CLI 0.61.0, and Claude Code 2.1.197
 * beside them: each TUI in a pane of a private tmux server, started by the real `baton up` (which installs
 * baton's hooks in each agent's folder and adds what each needs on its command line: trusted folder and
 * hooks for Codex, trusted folder and the policy for Gemini), talking to its own local mock of its API
 * (./mock-codex.ts, ./mock-gemini.ts, ./mock-anthropic.ts). A mock answers each baton message by running
 * `baton post` through its client's shell tool, so every message is written by a real client, carried by
 * baton and typed into another real client — or, for an agent with `reply: "auto"`, is its model's plain
 * final answer, which baton posts for it from its hooks.
 *
 * With three agents (the round robin) each message after the first carries what its receiver missed since its
 * last turn (docs/protocol.md §11) — the topic, the others' messages, the 20 KB one cut and named, the hostile
 * ones quoted — and each receiver's model is shown to get it whole, its hook's receipt intact.
 *
 * The hostile set travels through every kind: 20 KB, a leading `/clear`, ` /quit` after a space (Gemini
 * runs it), a leading `!` (Codex runs it), a trailing `\` (Gemini drops it and takes Enter as a newline),
 * control bytes, CRLF, and a message to a busy agent (Codex: Tab queues it as a turn of its own, where an
 * Enter would steer it into the running turn; Gemini queues). Each mock's log is the truth: every message
 * once, in order, as baton typed it after the client's documented rewrites, and no client exited.
 *
 * The clients are installed on demand (scripts/agent-cli.mjs, cached in .cache/); a failed install fails
 * the test, it never skips.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { catchUp } from '../../src/core/catch-up.js';
import { CATCH_UP_OPENER, kickoffHint, render, replyHint } from '../../src/core/compose.js';
import type { Config } from '../../src/config/config.js';
import { endGroups } from '../../src/lib/process.js';
import { allRecords, DEFAULT_RULES } from '../helpers/group.js';
import { Project, waitFor } from '../helpers/harness.js';
import { claudeAgent, codexAgent, geminiAgent, installClient, VERSIONS, type Client } from './clients.js';
import { MockAnthropic, shq, type Delivered } from './mock-anthropic.js';
import { MockResponses } from './mock-codex.js';
import { MockGemini } from './mock-gemini.js';
import { enterToReceipt, spread, tally } from './report.js';

const BIG = Array.from(
  { length: 340 },
  (_, i) => `line ${String(i + 1).padStart(3, '0')} of the 20 KB message, ${'abcdefghij'.repeat(3)}\n`,
).join('');
const CONTROL =
  'control bytes: ETX\x03 SUB\x1a NUL\x00 fake paste end \x1b[201~ CR\rCRLF\r\nSGR \x1b[31mred\x1b[0m BEL\x07 DEL\x7f C1-CSI\u009b2J TABS\tx\tyz\tend';
const id = (n: number) => `msg_${String(n).padStart(4, '0')}`;
const KICKOFF = 'please open the conversation';
/** How long a client may show a dialog or a screen baton does not know before the test calls it stuck. */
const STUCK_MS = 20_000;

type Mock = MockAnthropic | MockResponses | MockGemini;
interface AgentSpec {
  name: string;
  kind: Client;
  /** The model answers in plain text and baton posts it (its hooks), instead of running `baton post`. */
  auto?: boolean;
}
interface Scenario {
  agents: AgentSpec[];
  policy: 'alternate' | 'round_robin';
  /** CONTENT[n - 1] is msg_000n, written by agents in turn from the first. */
  content: string[];
  /** Hold agent A's model after it posted msg_k, until msg_(k + hops) — the next one to A — is delivered to the busy A. */
  busy: Array<{ agent: string; after: number }>;
}

let p: Project | undefined;
const mocks = new Map<string, Mock>();
const bins: Partial<Record<Client, string>> = {};

afterEach(async () => {
  for (const m of mocks.values()) await m.close();
  mocks.clear();
  if (!p) return;
  // Only this test's tmux server: kill it, let the clients exit (they write to their HOMEs on the way
  // out), then let p.stop() remove the project folder.
  const pids = (await p.tmux(['list-panes', '-a', '-F', '#{pane_pid}'])).stdout.split('\n').filter(Boolean).map(Number);
  await p.killServer();
  // Gemini CLI ignores the hangup and would live on without a terminal: what is left gets SIGTERM, then SIGKILL.
  await endGroups(pids, 5000);
  await p.stop();
  p = undefined;
});

/** What a client makes of typed text before its model gets it (measured): Claude Code a TAB as 4 spaces. */
const asSent = (kind: Client, typed: string) => (kind === 'claude' ? typed.replace(/\t/g, '    ') : typed);

async function converse(s: Scenario): Promise<void> {
  const started = Date.now();
  const trace: string[] = [];
  const note = (line: string) => trace.push(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s ${line}`);
  const n = s.content.length;
  const order = s.agents.map((a) => a.name);
  const writer = (k: number) => s.agents[(k - 1) % s.agents.length]!;
  const hops = s.agents.length; // msg_k from A; the next message to A is msg_(k + hops - 1)
  const directions = Object.fromEntries(
    s.agents.map((a, i) => [`${a.name}_out`, [a.name, order[(i + 1) % order.length]!]]),
  );
  const project = (p = new Project()); // its config is written below, once the mocks' addresses are known
  const problems: string[] = [];
  const armed = new Map<string, number>();
  const windows = new Map<number, { start: number; end: number }>();
  const agents: Record<string, unknown> = {};

  for (const a of s.agents) {
    const bin = bins[a.kind] ?? (bins[a.kind] = installClient(a.kind));
    const onMessage = (d: Delivered) => {
      const k = d.id === 'user_0001' ? 1 : /^msg_\d+$/.test(d.id) ? Number(d.id.slice(4)) + 1 : 0;
      if (k < 1 || k > n) return { say: d.id === id(n) ? 'The conversation is complete.' : 'Noted, thank you.' };
      if (s.busy.some((b) => b.agent === a.name && b.after === k)) armed.set(a.name, k);
      return a.auto ? { say: s.content[k - 1]! } : { post: s.content[k - 1]! };
    };
    // The answer after the post of msg_k (its tool output comes back): kept open until the next message to A is typed.
    const hold = async (req: { kind: string; toolOutputs?: unknown[]; toolResults?: unknown[] }) => {
      const k = armed.get(a.name);
      if (!k || !(req.toolOutputs?.length || req.toolResults?.length) || req.kind === 'title') return;
      armed.delete(a.name);
      const next = k + hops - 1;
      const start = Date.now();
      note(`${a.name} busy (held) until ${id(next)} is delivered`);
      try {
        await waitFor(
          `${id(next)} delivered to the busy ${a.name}`,
          () => project.archive().find((r) => r.id === id(next))?.delivered_at,
          120_000,
          100,
        );
        await sleep(1500);
      } catch (err) {
        problems.push(String(err));
      }
      windows.set(next, { start, end: Date.now() });
      note(`${a.name} released`);
    };
    const opts = { name: a.name, log: note, onMessage, hold };
    const mock =
      a.kind === 'claude'
        ? await MockAnthropic.start(opts)
        : a.kind === 'codex'
          ? await MockResponses.start(opts)
          : await MockGemini.start(opts);
    mocks.set(a.name, mock);
    const make = a.kind === 'claude' ? claudeAgent : a.kind === 'codex' ? codexAgent : geminiAgent;
    const { cwd, env } = make(project.dir, project.configFile, a.name, mock.url);
    const flags =
      a.kind === 'claude'
        ? '--dangerously-skip-permissions'
        : a.kind === 'codex'
          ? '--dangerously-bypass-approvals-and-sandbox'
          : '--yolo';
    agents[a.name] = {
      kind: a.kind,
      cwd,
      command: `${shq(bin)} ${flags}`,
      env,
      session: a.name,
      ...(a.auto ? { reply: 'auto' } : {}),
    };
  }
  project.writeConfig({
    message_dir: './messages',
    agents,
    directions,
    first_turn: order[0],
    turns: { policy: s.policy, max_turns: 0, timeout_s: 0 },
    inbox: { max_bytes: 1048576, settle_ms: 300 },
  });

  const pane = async (name: string) => (await project.tmux(['capture-pane', '-p', '-t', `=${name}:`])).stdout;
  try {
    // The real `baton up`: hooks and launch flags for each kind, the agents' sessions, the daemon, and
    // the topic typed to the first speaker once its client shows an empty input box.
    const up = await project.cli(['up', '--topic', KICKOFF]);
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    note(
      `baton up: ${(up.stdout + up.stderr)
        .split('\n')
        .filter((l) => /hooks|started|daemon|topic/.test(l))
        .join(' / ')}`,
    );
    const last = s.agents[n % s.agents.length]!; // the receiver of the last message
    // A client that exited, or a screen baton cannot type into (a dialog, a screen it does not know) for
    // STUCK_MS, fails the test at once, saying what the pane shows, not at the timeout.
    const stuckSince = new Map<string, number>();
    let lookedAt = 0;
    await waitFor(
      `${last.name}'s model to get ${id(n)}`,
      async () => {
        if (problems.length) throw new Error(problems.join('\n'));
        const dead = (await project.tmux(['list-panes', '-a', '-F', '#{session_name} #{pane_dead}'])).stdout
          .split('\n')
          .filter((l) => l.endsWith(' 1'));
        if (dead.length) throw new Error(`a client exited: ${dead.join(', ')}`);
        if (Date.now() - lookedAt > 2000) {
          lookedAt = Date.now();
          const st = JSON.parse((await project.cli(['status', '--json'])).stdout || '{}') as {
            agents?: Record<string, { screen: { state: string; detail?: string } | null }>;
          };
          for (const a of order) {
            const sc = st.agents?.[a]?.screen;
            if (!sc || sc.state === 'ready' || sc.state === 'holding') stuckSince.delete(a);
            else if (Date.now() - (stuckSince.get(a) ?? stuckSince.set(a, Date.now()).get(a)!) > STUCK_MS)
              throw new Error(`${a}'s screen is ${sc.state} (${sc.detail ?? ''}) for ${STUCK_MS / 1000} s`);
          }
        }
        return (mocks.get(last.name)!.turns() as Array<{ answeredAt?: number; delivered?: Delivered[] }>).some(
          (r) => r.answeredAt && r.delivered?.some((d) => d.id === id(n)),
        );
      },
      300_000,
      250,
    );
    await waitFor(
      'every delivery stamped and received',
      () =>
        project.archive().length === n &&
        project.archive().every((r) => r.delivered_at && (r as { received?: unknown }).received),
      30_000,
      100,
    );
    expect(problems).toEqual([]);

    // ── the archive: IDs 1..N, a reply_to chain, senders in turn, content as each model wrote it
    const archive = project.archive() as Array<
      ReturnType<Project['archive']>[number] & {
        sender: string;
        receiver: string;
        type?: string;
        confirmed?: string;
        received?: { intact: boolean; at: string };
        auto?: boolean;
      }
    >;
    expect(archive.map((r) => r.id)).toEqual(s.content.map((_, i) => id(i + 1)));
    archive.forEach((r, i) => {
      const w = writer(i + 1);
      expect([r.sender, r.reply_to], r.id).toEqual([w.name, i === 0 ? null : id(i)]);
      // An automatic reply is the model's answer as Gemini CLI keeps it in its transcript: trimmed.
      expect(r.content, r.id).toBe(w.auto ? s.content[i]!.trim() : s.content[i]);
      expect(r.auto === true, `${r.id} auto`).toBe(Boolean(w.auto));
      // Every kind's submit is confirmed from its screen, then by its prompt hook: intact.
      expect(r.confirmed, r.id).toBe('hook');
      expect(r.received?.intact, `${r.id} received intact`).toBe(true);
    });
    expect(Buffer.byteLength(archive.find((r) => r.content.length > 20_000)?.content ?? '')).toBeGreaterThanOrEqual(
      20 * 1024,
    );
    const bad = project
      .events()
      .filter((e) => ['rejected', 'delivery_failed', 'redelivered', 'delivery_unconfirmed'].includes(e.event));
    expect(bad).toEqual([]);

    // ── what each model received: every message to its agent once, in order, exactly as baton typed it
    const rules = {
      turns: { policy: s.policy },
      order,
      agents: Object.fromEntries(s.agents.map((a) => [a.name, { reply: a.auto ? 'auto' : 'post' }])),
    } as unknown as Pick<Config, 'turns' | 'order'>;
    const user = {
      id: 'user_0001',
      sender: 'user',
      receiver: order[0]!,
      reply_to: null,
      type: 'task',
      content: KICKOFF,
    };
    // With three agents a message that gives the turn carries what its receiver missed (docs/protocol.md §11),
    // computed from the whole archive (the topic included) with the default budgets.
    const history = allRecords(project.messages);
    const caughtUp = new Map<string, number>();
    for (const a of s.agents) {
      const mine = [user, ...archive].filter((r) => r.receiver === a.name);
      const mock = mocks.get(a.name)!;
      // Each mock counts a retried request once (Codex's, a request a steer interrupted, by each message's place).
      const got = mock.received();
      expect(
        got.map((d) => d.id),
        `${a.name} received`,
      ).toEqual(mine.map((r) => r.id));
      mine.forEach((r, i) => {
        const env = {
          id: r.id,
          from: r.sender,
          to: a.name,
          reply_to: r.reply_to,
          type: r.type ?? 'message',
          content: r.content,
        };
        const block =
          r.id === 'user_0001'
            ? ''
            : catchUp({ history, agent: a.name, current: r.id, agents: order.length, rules: DEFAULT_RULES }).text;
        if (block) caughtUp.set(a.name, (caughtUp.get(a.name) ?? 0) + 1);
        const typed = render(
          env,
          undefined,
          r.id === 'user_0001' ? kickoffHint(rules, a.name, null) : replyHint(rules, a.name),
          block,
        );
        expect(got[i]!.text, `${a.name} received ${r.id} intact`).toBe(asSent(a.kind, typed));
      });
    }
    // Each receiver's model got its catch-ups (every message after the first round carries one); two agents none.
    for (const a of s.agents) {
      const got = mocks
        .get(a.name)!
        .received()
        .filter((d) => d.text.includes(`\n${CATCH_UP_OPENER}\n`));
      expect(got.length, `${a.name}'s model received a catch-up`).toBe(caughtUp.get(a.name) ?? 0);
      if (s.agents.length >= 3) expect(got.length, a.name).toBeGreaterThanOrEqual(2);
    }

    // ── nothing typed ran as a command, and every client is still there
    for (const a of s.agents) {
      expect(existsSync(join(project.dir, 'agents', a.name, 'PWNED')), `${a.name}: "!touch PWNED" ran`).toBe(false);
      const info = (
        await project.tmux(['display-message', '-p', '-t', `=${a.name}:`, '#{pane_dead} #{pane_current_command}'])
      ).stdout.trim();
      expect(info, `${a.name}'s client is alive`).toMatch(/^0 /);
    }
    // ── baton's MCP server, registered by `baton up`, was started by each client and its post tool offered to the model
    for (const a of s.agents.filter((x) => x.kind !== 'claude')) {
      const offered = [
        ...new Set((mocks.get(a.name)!.requests as Array<{ tools?: string[] }>).flatMap((r) => r.tools ?? [])),
      ];
      // Codex nests an MCP server's tools under a namespace (`mcp__baton`: post, status, transcript), Gemini
      // prefixes each (`mcp_baton_post`).
      const names = offered.join(' ');
      expect(
        /\bmcp__baton\b.*\bpost\b|\bmcp_baton_post\b/.test(names),
        `${a.name} offered baton's post tool (tools: ${names})`,
      ).toBe(true);
    }
    // ── `baton status` reads each kind's screen: every box empty, no turn running
    await waitFor(
      'every client idle',
      async () => {
        const st = JSON.parse((await project.cli(['status', '--json'])).stdout) as {
          agents: Record<string, { screen: { state: string; busy?: boolean } | null }>;
        };
        return order.every((a) => st.agents[a]?.screen?.state === 'ready' && st.agents[a]?.screen?.busy === false);
      },
      30_000,
      250,
    );
    // ── the busy deliveries went into a busy client and arrived as a turn of their own, after the running one
    for (const b of s.busy) {
      const next = b.after + hops - 1;
      const w = windows.get(next);
      const r = archive.find((x) => x.id === id(next))!;
      expect(
        w && Date.parse(r.delivered_at!) >= w.start && Date.parse(r.delivered_at!) <= w.end,
        `${id(next)} typed while ${b.agent} was busy`,
      ).toBe(true);
      const mock = mocks.get(b.agent)!;
      const carried = (
        mock.turns() as Array<{ at: number; delivered?: Delivered[]; toolOutputs?: unknown[]; toolResults?: unknown[] }>
      ).filter((q) => q.delivered?.some((d) => d.id === id(next)));
      expect(carried.length, `${id(next)} reached ${b.agent}'s model once`).toBe(1);
      expect(carried[0]!.at, `${id(next)} came after the busy turn ended`).toBeGreaterThanOrEqual(w!.end);
      expect(
        (carried[0]!.toolOutputs ?? carried[0]!.toolResults ?? []).length,
        `${id(next)} is a turn of its own, not steered into a tool result`,
      ).toBe(0);
    }
    // The screen's word on each submit, per receiving kind: printed, so a run says how each kind confirmed.
    const submits = s.agents
      .map(
        (a) =>
          `${a.kind}: ${tally(
            project
              .events()
              .filter((e) => e.event === 'delivered' && e.to === a.name)
              .map((e) => e.submit),
          )}`,
      )
      .join('; ');
    // How long after its Enter each kind's prompt hook reported the message.
    const lead = s.agents
      .map(
        (a) =>
          `${a.kind} ${spread(
            enterToReceipt(
              project.events(),
              archive.filter((r) => r.receiver === a.name),
            ),
          )}`,
      )
      .join('; ');
    console.log(
      `[e2e] ${s.agents.map((a) => `${a.name} (${a.kind} ${VERSIONS[a.kind]}${a.auto ? ', auto' : ''})`).join(' → ')}: ${n} turns in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
        `submits confirmed: ${submits}; Enter → receipt: ${lead}; events: ${tally(project.events().map((e) => e.event))}`,
    );
  } catch (err) {
    const dump: string[] = ['── trace', ...trace];
    for (const a of s.agents) dump.push(`── ${a.name}'s pane`, (await pane(a.name)).replace(/\n+$/, ''));
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
    const saved = join(tmpdir(), `baton-e2e-mixed-${Date.now()}.json`);
    writeFileSync(
      saved,
      JSON.stringify({ trace, requests: Object.fromEntries([...mocks].map(([k, m]) => [k, m.requests])) }, null, 1),
    );
    dump.push(`── every request the mocks got: ${saved}`);
    console.error(dump.join('\n'));
    throw err;
  }
}

describe(`real Codex CLI ${VERSIONS.codex} and Gemini CLI ${VERSIONS.gemini} agents under the baton daemon`, () => {
  it(
    'install on demand (scripts/agent-cli.mjs)',
    () => {
      for (const c of ['codex', 'gemini'] as const) bins[c] = installClient(c);
      expect(existsSync(bins.codex!) && existsSync(bins.gemini!)).toBe(true);
    },
    15 * 60_000,
  );

  it('Codex ↔ Gemini: 10 turns with 20 KB, /clear, " /quit", "!", a trailing "\\", control bytes, CRLF, and each busy once', async () => {
    await converse({
      agents: [
        { name: 'codex1', kind: 'codex' },
        { name: 'gemini1', kind: 'gemini' },
      ],
      policy: 'alternate',
      content: [
        /* 1  codex1  */ 'Hello gemini1! codex1 here, opening the mixed conversation.',
        /* 2  gemini1 */ '/clear reply to msg_0001: this starts with a slash command and must arrive as plain text',
        /* 3  codex1  */ BIG,
        /* 4  gemini1 */ ' /quit reply to msg_0003: a leading space, then /quit, which Gemini runs even so',
        /* 5  codex1  */ '!touch PWNED\nreply to msg_0004: the line above starts with "!", which Codex runs locally',
        /* 6  gemini1 */ 'reply to msg_0005: this one ends with a backslash \\',
        /* 7  codex1  */ `reply to msg_0006 with ${CONTROL}`,
        /* 8  gemini1 */ 'reply to msg_0007: codex1 is still busy when this arrives',
        /* 9  codex1  */ 'reply to msg_0008: got it as a turn of my own\r\nwith a CRLF line break; gemini1 is busy now\r\n',
        /* 10 gemini1 */ 'reply to msg_0009: that was turn 10, the last one. Goodbye!',
      ],
      busy: [
        { agent: 'codex1', after: 7 },
        { agent: 'gemini1', after: 8 },
      ],
    });
  }, 600_000);

  it('Claude Code → Codex → Gemini round robin: 9 turns, Gemini answering in plain text (reply "auto")', async () => {
    await converse({
      agents: [
        { name: 'claude1', kind: 'claude' },
        { name: 'codex1', kind: 'codex' },
        { name: 'gemini1', kind: 'gemini', auto: true },
      ],
      policy: 'round_robin',
      content: [
        /* 1 claude1 */ 'Hello codex1 and gemini1! claude1 opens the round.',
        /* 2 codex1  */ '/clear reply to msg_0001 from codex1: a leading slash command',
        /* 3 gemini1 */ ' /quit is where gemini1 starts its final answer, and it must reach claude1 as text',
        /* 4 claude1 */ BIG,
        /* 5 codex1  */ '!touch PWNED\nreply to msg_0004: a leading "!", and a trailing backslash \\',
        /* 6 gemini1 */ `gemini1's plain answer: ünïcödé, 🎉, "quotes", $HOME and \`ticks\`, a tab\there, ending in a backslash \\`,
        /* 7 claude1 */ `reply to msg_0006 with ${CONTROL}`,
        /* 8 codex1  */ 'reply to msg_0007: written after my busy turn\r\nwith CRLF\r\n',
        /* 9 gemini1 */ 'reply to msg_0008: the last turn, 9 of 9. Goodbye!',
      ],
      busy: [{ agent: 'codex1', after: 5 }],
    });
  }, 600_000);
});
