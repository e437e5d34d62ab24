/**
 * A reboot in the middle of a conversation of the real Claude Code 2.1.197, Codex 0.169.0 and Gemini CLI
 * 0.61.0 (docs/protocol.md §12), each against its local mock: five messages, then the daemon killed with -9
 * and the tmux server killed (every client gets SIGHUP, what is left SIGKILL — a power cut as near as one
 * machine gets), then `baton up`. Each client is started with its own resume of the session its hooks
 * reported, and the truth is in the mocks: each agent's next model request carries what it did before the
 * reboot (its own earlier `baton post` — no catch-up ever carries an agent's own messages, so only a resumed
 * session has them). The turn holder, whose model had got its message and answered without posting, is
 * reminded of it and goes on; the conversation finishes with nothing lost or typed twice unflagged, and every
 * turn's tokens are recorded on the message that opened it, with its model and cost.
 *
 * The clients are installed on demand (scripts/agent-cli.mjs, cached); a failed install fails the test.
 */
import { afterEach, expect, it } from 'vitest';
import { endGroups } from '../../src/lib/process.js';
import { alive, Project, waitFor } from '../helpers/harness.js';
import { claudeAgent, codexAgent, geminiAgent, installClient, pinCodexModel } from './clients.js';
import { MockAnthropic, shq } from './mock-anthropic.js';
import { MockResponses } from './mock-codex.js';
import { MockGemini } from './mock-gemini.js';
import { distinctUsage, type RequestBase } from './mock-server.js';

const AGENTS = ['claude1', 'codex1', 'gemini1'] as const;
/** Messages before the reboot; the one that answers the last of them comes after it. */
const BEFORE = 5;
const TOTAL = 8;
/** msg_k's content: a word no client or baton writes, naming the message. */
const content = (k: number) => `resume check ${k}: zebra-${k}-quartz from ${writer(k)}`;
const writer = (k: number) => AGENTS[(k - 1) % AGENTS.length]!;
const num = (id: string) => (id === 'user_0001' ? 0 : Number(id.slice(4)));

/** Per model content with function calls: how many calls, and how many responses the next content has. */
function toolPairs(sent: string): Array<[number, number]> {
  const { contents } = JSON.parse(sent) as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> };
  const count = (i: number, key: string) => contents[i]?.parts.filter((x) => key in x).length ?? 0;
  return contents.flatMap((_c, i) =>
    count(i, 'functionCall') ? [[count(i, 'functionCall'), count(i + 1, 'functionResponse')]] : [],
  );
}

let p: Project | undefined;
const mocks: Array<MockAnthropic | MockResponses | MockGemini> = [];

async function killClients(project: Project): Promise<void> {
  const pids = (await project.tmux(['list-panes', '-a', '-F', '#{pane_pid}'])).stdout
    .split('\n')
    .filter(Boolean)
    .map(Number);
  await project.killServer();
  // Gemini CLI ignores the hangup and would live on without a terminal: what is left gets SIGTERM, then SIGKILL.
  await endGroups(pids, 5000);
}

afterEach(async () => {
  for (const m of mocks.splice(0)) await m.close();
  if (!p) return;
  await killClients(p);
  await p.stop();
  p = undefined;
});

/** What each agent's mock does; `name` is the agent's. */
type Behaviour = (name: string) => {
  onMessage: (d: { id: string }) => { post: string } | { say: string } | undefined;
  onText?: (t: string) => { post: string } | undefined;
  hold?: (req: { kind: string }) => Promise<void> | void;
};

/** The three real clients, each against its mock, in one round robin (its config written, nothing started). */
async function threeClients(behaviour: Behaviour, turns: Record<string, unknown> = {}) {
  const project = (p = new Project());
  const trace: string[] = [];
  const mk = (name: string) => ({ name, usage: distinctUsage, log: (l: string) => trace.push(l), ...behaviour(name) });
  const mc = await MockAnthropic.start(mk('claude1'));
  const mx = await MockResponses.start(mk('codex1'));
  const mg = await MockGemini.start(mk('gemini1'));
  mocks.push(mc, mx, mg);
  const byAgent = { claude1: mc, codex1: mx, gemini1: mg } as const;
  const c = claudeAgent(project.dir, project.configFile, 'claude1', mc.url);
  const x = codexAgent(project.dir, project.configFile, 'codex1', mx.url);
  const g = geminiAgent(project.dir, project.configFile, 'gemini1', mg.url);
  // Codex 0.169.0's own default model, which the price table has (the offline recipe pins one it has not).
  pinCodexModel(project.dir, 'codex1', 'gpt-6.1-sol');
  project.writeConfig({
    message_dir: './messages',
    agents: {
      claude1: {
        kind: 'claude',
        cwd: c.cwd,
        env: c.env,
        command: `${shq(installClient('claude'))} --dangerously-skip-permissions`,
      },
      codex1: {
        kind: 'codex',
        cwd: x.cwd,
        env: x.env,
        command: `${shq(installClient('codex'))} --dangerously-bypass-approvals-and-sandbox`,
      },
      gemini1: { kind: 'gemini', cwd: g.cwd, env: g.env, command: `${shq(installClient('gemini'))} --yolo` },
    },
    turns: { policy: 'round_robin', ...turns },
  });
  const record = (k: number) => project.archive().find((r) => r.id === `msg_${String(k).padStart(4, '0')}`);
  const dump = async () =>
    `${trace.join('\n')}\n${(await project.cli(['status'])).stdout}\n${JSON.stringify(project.archive(), null, 1)}`;
  /** The daemon killed with -9 (what `status` names). */
  const killDaemon = async () => {
    const status = JSON.parse((await project.cli(['status', '--json'])).stdout) as { daemon: { pid: number | null } };
    const pid = status.daemon.pid;
    if (!pid) return;
    process.kill(pid, 'SIGKILL');
    await waitFor('daemon gone', () => !alive(pid));
  };
  return { project, byAgent, record, dump, killDaemon };
}

it('a reboot mid-conversation: every real client resumes its session and the conversation finishes', async () => {
  let rebooted = false;
  const { project, byAgent, record, dump, killDaemon } = await threeClients(() => ({
    onMessage: (d) => {
      const k = num(d.id) + 1;
      // The answer to the last message before the reboot is not posted yet: the reboot finds its agent owing it.
      if (k === BEFORE + 1 && !rebooted) return { say: 'Let me think about that.' };
      return k <= TOTAL ? { post: content(k) } : { say: 'The conversation is complete.' };
    },
    // After the reboot the turn holder is reminded of the message it owes a reply to (its model got it).
    onText: (t) =>
      rebooted && /your session was resumed: it is your turn/.test(t) ? { post: content(BEFORE + 1) } : undefined,
  }));

  try {
    const up = await project.cli(['up', '--topic', 'please open the conversation']);
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    // Five messages, and the turn msg_0005 opened ended (its tokens recorded) without a reply.
    await waitFor(
      'five messages, the fifth answered unposted',
      () => Boolean(record(BEFORE)?.turn_tokens),
      300_000,
      500,
    );
    const sessions = project.state().sessions as Record<string, { id: string }>;
    expect(Object.keys(sessions).sort()).toEqual([...AGENTS].sort());

    // The reboot: the daemon killed with -9, every client with the tmux server.
    await killDaemon();
    await killClients(project);
    const mark = Object.fromEntries(AGENTS.map((a) => [a, byAgent[a].requests.length]));
    rebooted = true;

    const again = await project.cli(['up']);
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
    for (const a of AGENTS) expect(again.stdout + again.stderr).toContain(`${a}: started`);
    expect(again.stdout + again.stderr).not.toMatch(/started new|could not resume/);
    await waitFor('the conversation finishes', () => Boolean(record(TOTAL)?.turn_tokens), 300_000, 500).catch(
      async (e) => {
        console.log(await dump());
        throw e;
      },
    );

    // Each client's first turn after the reboot carries its own messages from before it: its session went on.
    for (const a of AGENTS) {
      const first = (byAgent[a].requests as RequestBase[]).slice(mark[a]).find((r) => r.kind === 'turn');
      expect(first, `${a} made no turn request after the reboot`).toBeDefined();
      const own = Array.from({ length: BEFORE }, (_, i) => i + 1).filter((k) => writer(k) === a);
      for (const k of own)
        expect(first!.sent?.includes(`zebra-${k}-quartz`), `${a}'s first request after the reboot has msg_${k}`).toBe(
          true,
        );
    }
    // Gemini CLI repeats earlier tool results at a resume (the real API refuses that): baton repairs its chat
    // file first, so each call has one response.
    for (const r of (byAgent.gemini1.requests as RequestBase[]).slice(mark.gemini1).filter((x) => x.kind === 'turn'))
      for (const [call, responses] of toolPairs(r.sent!))
        expect(responses, `gemini1's request #${r.seq}: responses to ${call} call(s)`).toBe(call);
    // The holder was reminded, not given the message twice; nothing lost or doubled.
    expect(project.events().filter((e) => e.event === 'restarted')).toEqual([
      expect.objectContaining({
        agent: writer(BEFORE + 1),
        id: `msg_${String(BEFORE).padStart(4, '0')}`,
        told: 'remind',
      }),
    ]);
    const archive = project.archive();
    expect(archive.map((r) => r.id)).toEqual(
      Array.from({ length: TOTAL }, (_, i) => `msg_${String(i + 1).padStart(4, '0')}`),
    );
    expect(archive.map((r) => r.content.trim())).toEqual(Array.from({ length: TOTAL }, (_, i) => content(i + 1)));
    for (const a of AGENTS) {
      const ids = byAgent[a].received().map((d) => d.id);
      expect(new Set(ids).size, `${a} got a message twice: ${ids.join(' ')}`).toBe(ids.length);
    }
    // Tokens and cost in USD of every turn, with the model, on the message that opened it; summed in the state.
    let sum = 0;
    for (const r of archive) {
      const cost = r.turn_cost as { usd: number | null; models: string[]; unpriced: string[] } | undefined;
      expect((r.turn_tokens as { output?: number } | undefined)?.output, `${r.id}'s output tokens`).toBeGreaterThan(0);
      expect(cost?.models.length, `${r.id}'s models`).toBeGreaterThan(0);
      expect(cost?.unpriced, `${r.id}: a model with no price`).toEqual([]);
      expect(cost?.usd, `${r.id}'s cost`).toBeGreaterThan(0);
      sum += cost!.usd!;
    }
    const spent = project.state().cost as { usd: number; by_agent: Record<string, number> };
    expect(spent.usd).toBeGreaterThanOrEqual(sum - 1e-9); // and the opening turn (the topic's), and the one a reminder began
    expect(Object.keys(spent.by_agent).sort()).toEqual([...AGENTS].sort());
  } finally {
    if (process.env.BATON_E2E_TRACE) console.log(await dump());
  }
}, 900_000);

it('kill -9 of the daemon and of the holding agent mid-turn: up starts its dead pane resumed, it is reminded', async () => {
  const LAST = 6;
  /** codex1 holds the turn after msg_0004 (k = 5): its model is kept thinking until the kill. */
  const VICTIM = writer(5);
  let killed = false;
  let release = () => {};
  const { project, byAgent, record, dump, killDaemon } = await threeClients((name) => ({
    onMessage: (d) => {
      const k = num(d.id) + 1;
      return k <= LAST ? { post: content(k) } : { say: 'The conversation is complete.' };
    },
    onText: (t) => (killed && /your session was resumed: it is your turn/.test(t) ? { post: content(5) } : undefined),
    hold: (req) => {
      const turn = req as { kind: string; delivered?: Array<{ id: string }> };
      if (name !== VICTIM || killed || turn.kind !== 'turn' || !turn.delivered?.some((m) => m.id === 'msg_0004'))
        return;
      return new Promise<void>((ok) => {
        release = ok;
      });
    },
  }));
  try {
    const up = await project.cli(['up', '--topic', 'please open the conversation']);
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    // msg_0004 reached codex1's model (its receipt came), which is still thinking.
    await waitFor('msg_0004 received by its model', () => Boolean(record(4)?.received), 300_000, 500);
    await waitFor('its model holds it', () => byAgent[VICTIM].requests.some((r) => r.kind === 'turn' && !r.answeredAt));
    const mark = byAgent[VICTIM].requests.length;

    await killDaemon();
    const pane = (await project.tmux(['list-panes', '-t', `=${VICTIM}:`, '-F', '#{pane_pid}'])).stdout.trim();
    process.kill(-Number(pane), 'SIGKILL'); // its whole process group: the client and what it started
    killed = true;
    release();
    await waitFor('its pane is dead', async () => {
      const dead = await project.tmux(['list-panes', '-t', `=${VICTIM}:`, '-F', '#{pane_dead}']);
      return dead.stdout.trim() === '1';
    });

    const again = await project.cli(['up']);
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
    expect(again.stdout + again.stderr).toContain(`${VICTIM}: started`);
    expect(again.stdout + again.stderr).not.toMatch(/started new|could not resume/);
    await waitFor('the conversation goes on to its end', () => Boolean(record(LAST)?.turn_tokens), 300_000, 500).catch(
      async (e) => {
        console.log(await dump());
        throw e;
      },
    );
    // Its resumed session has what it did before: its own msg_0002 (k = 2 is codex1's).
    const first = (byAgent[VICTIM].requests as RequestBase[]).slice(mark).find((r) => r.kind === 'turn');
    expect(first?.sent?.includes('zebra-2-quartz'), 'its first request after the kill has msg_0002').toBe(true);
    expect(project.events().filter((e) => e.event === 'restarted')).toEqual([
      expect.objectContaining({ agent: VICTIM, id: 'msg_0004', told: 'remind' }),
    ]);
    const archive = project.archive();
    expect(archive.map((r) => r.content.trim())).toEqual(Array.from({ length: LAST }, (_, i) => content(i + 1)));
    expect(archive.filter((r) => r.redelivered)).toEqual([]);
  } finally {
    release();
    if (process.env.BATON_E2E_TRACE) console.log(await dump());
  }
}, 900_000);

it('turns.max_cost_usd pauses a conversation of the three real clients; resume --budget goes on to the end', async () => {
  const LAST = 5;
  const { project, record, dump } = await threeClients(
    () => ({
      onMessage: (d) => {
        const k = num(d.id) + 1;
        return k <= LAST ? { post: content(k) } : { say: 'The conversation is complete.' };
      },
    }),
    // Each turn costs about a cent at these prices (distinctUsage): reached within the first few turns.
    { max_cost_usd: 0.02 },
  );
  try {
    const up = await project.cli(['up', '--topic', 'please open the conversation']);
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    const paused = () => project.state().paused as { reason?: string; budget?: string; spent_usd?: number } | null;
    await waitFor('the budget pauses it', () => paused()?.reason === 'budget', 300_000, 500).catch(async (e) => {
      console.log(await dump());
      throw e;
    });
    expect(paused()).toMatchObject({ budget: 'turns.max_cost_usd', max_usd: 0.02 });
    expect(paused()!.spent_usd).toBeGreaterThanOrEqual(0.02);
    await waitFor('the budget event', () => project.events().some((e) => e.event === 'budget'));
    expect((await project.cli(['status'])).stdout).toMatch(/cost +\$[\d.]+ of max \$0\.02/);
    const counted = project.archive().length;
    expect(counted).toBeLessThan(LAST);

    const resumed = await project.cli(['resume', '--budget', '100']);
    expect(resumed.exitCode, resumed.stdout + resumed.stderr).toBe(0);
    await waitFor('it goes on to its end', () => Boolean(record(LAST)?.turn_tokens), 300_000, 500).catch(async (e) => {
      console.log(await dump());
      throw e;
    });
    expect(project.archive().map((r) => r.content.trim())).toEqual(
      Array.from({ length: LAST }, (_, i) => content(i + 1)),
    );
    expect(project.events().filter((e) => e.event === 'budget')).toHaveLength(1);
  } finally {
    if (process.env.BATON_E2E_TRACE) console.log(await dump());
  }
}, 900_000);
