/**
 * Blocked on a person, with the real clients (docs/protocol.md §12): Claude Code, Codex CLI and Gemini CLI,
 * each NOT in bypass mode, against its own local API mock. A recorder agent `t` hands the client `x` a
 * message whose model asks to run a command with its shell tool (Codex: outside its sandbox, the one call its
 * default mode asks about); the client opens its permission dialog and:
 *
 * 1. the conversation is blocked — the right agent, kind and question — within 2 s of the dialog showing on
 *    the screen; `answer --list` lists the client's own choices; a reminder due meanwhile is not typed (the
 *    dialog stays as it was); `baton answer x yes` types the keys that pick "yes": the command runs, the
 *    turn ends, and x's reply reaches t;
 * 2. the next one is answered "no": the command does not run, the screen clears the block (no client fires a
 *    hook for "No"), the reminder held while it was open is typed after; an answer for the closed dialog is
 *    refused.
 *
 * The project folder is under the system's temp folder, never inside a git worktree (Codex loads no project
 * hooks in a linked worktree: measured). The clients are installed on demand (scripts/agent-cli.mjs); a failed
 * install fails the test, it never skips.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { endGroups } from '../../src/lib/process.js';
import { Project, RECORDER, readRecorder, waitFor } from '../helpers/harness.js';
import { claudeAgentAsking, codexAgent, geminiAgent, installClient, VERSIONS, type Client } from './clients.js';
import { type Action, MockAnthropic, shq } from './mock-anthropic.js';
import { MockResponses } from './mock-codex.js';
import { MockGemini } from './mock-gemini.js';

type Mock = MockAnthropic | MockResponses | MockGemini;
let p: Project | undefined;
let mock: Mock | undefined;

afterEach(async () => {
  await mock?.close();
  mock = undefined;
  if (!p) return;
  const pids = (await p.tmux(['list-panes', '-a', '-F', '#{pane_pid}'])).stdout.split('\n').filter(Boolean).map(Number);
  await p.killServer();
  // Gemini CLI ignores the hangup and would live on without a terminal: what is left gets SIGTERM, then SIGKILL.
  await endGroups(pids, 5000);
  await p.stop();
  p = undefined;
});

/** Each client's permission dialog, by a line of its own (measured: /work/notes, the captures). */
const DIALOG: Record<Client, RegExp> = {
  claude: /Do you want to proceed\?/,
  codex: /Would you like to run the following command\?/,
  gemini: /Allow execution of/,
};
/**
 * The reminders' timeout: long enough for the dialog to open first on a busy machine (with two e2e files at
 * once and other tests beside them, Gemini CLI's dialog came 7.5 s after the message was typed).
 */
const TIMEOUT_S = 15;

type Blocked = {
  agent: string;
  kind: string;
  question: string;
  since: string;
  choices?: Array<{ n: number; label: string }>;
};

/** The question `ASK A QUESTION` makes the model ask with its client's own tool. */
const COLOR = {
  question: 'Which color should we use?',
  header: 'Color',
  options: [
    { label: 'Red', description: 'A warm color' },
    { label: 'Blue', description: 'A cool color' },
  ],
};

/**
 * The talker `t` (a recorder) and the real client `x` (not in bypass mode, `allow` its rules), up; `startUp`:
 * Claude Code opens a start-up dialog, which fires no hook — its folder not trusted yet (`trust`) or its API
 * key not approved yet (`key`) — and x holds the first turn.
 */
async function setUp(kind: Client, how: { allow?: string[]; startUp?: 'trust' | 'key' } = {}) {
  const allow = how.allow ?? [];
  const bin = installClient(kind);
  const project = (p = new Project());
  const trace: string[] = [];
  const onMessage = (d: { text: string }): Action => {
    const run = /^RUN (.+)$/m.exec(d.text)?.[1];
    if (run) return { run };
    return /^ASK A QUESTION$/m.test(d.text) ? { ask: COLOR } : { say: 'Noted.' };
  };
  const opts = { name: 'x', log: (l: string) => trace.push(l), onMessage };
  mock =
    kind === 'claude'
      ? await MockAnthropic.start(opts)
      : kind === 'codex'
        ? await MockResponses.start(opts)
        : await MockGemini.start(opts);
  const { cwd, env } = (kind === 'claude' ? claudeAgentAsking : kind === 'codex' ? codexAgent : geminiAgent)(
    project.dir,
    project.configFile,
    'x',
    mock.url,
  );
  if (how.startUp) {
    const file = join(env.HOME!, '.claude.json');
    const seeded = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (how.startUp === 'trust') seeded.projects = {};
    else seeded.customApiKeyResponses = { approved: [], rejected: [] };
    writeFileSync(file, JSON.stringify(seeded));
  }
  const tLog = join(project.dir, 't.log');
  project.writeConfig({
    message_dir: './messages',
    agents: {
      t: { kind: 'generic', command: `exec node ${shq(RECORDER)} ${shq(tLog)}` },
      // No bypass flag: the client asks before it runs what its defaults do not allow.
      x: { kind, cwd, command: shq(bin), env, reply: 'auto', ...(allow.length ? { allow } : {}) },
    },
    directions: { t_to_x: ['t', 'x'], x_to_t: ['x', 't'] },
    first_turn: how.startUp ? 'x' : 't',
    turns: { policy: 'alternate', timeout_s: TIMEOUT_S, max_nudges: 2 },
  });
  const up = await project.cli(['up']);
  expect(up.exitCode, up.stdout + up.stderr).toBe(0);
  const post = async (text: string) => {
    const r = await project.cli(['post', '--as', 't', '--to', 'x', '-'], { input: text });
    expect(r.exitCode, r.stderr).toBe(0);
  };
  const screen = async () => (await project.tmux(['capture-pane', '-p', '-t', '=x:'])).stdout;
  /** On a failure: the mock's trace, the screen, the state and the events, in a file named on stderr. */
  const keep = async (err: unknown): Promise<never> => {
    const saved = join(tmpdir(), `baton-e2e-blocked-${kind}-${Date.now()}.json`);
    const s = await screen().catch(() => '');
    writeFileSync(
      saved,
      JSON.stringify({ trace, screen: s, state: project.state(), events: project.events() }, null, 1),
    );
    console.error(`── ${kind}: the mock's trace, the screen, the state and the events: ${saved}`);
    throw err;
  };
  return { project, cwd, tLog, post, screen, keep };
}

async function scenario(kind: Client): Promise<void> {
  const { project, cwd, tLog, post, screen, keep } = await setUp(kind);
  const blocked = () => (project.state().blocked as Blocked | null | undefined) ?? null;
  const events = (name: string) => project.events().filter((e) => e.event === name);

  /** From the message on: when the dialog first shows on the screen and when the conversation is blocked. */
  async function dialogOpens(file: string): Promise<{ dialogAt: number; blockedAt: number; shown: string }> {
    let dialogAt = 0;
    let blockedAt = 0;
    let shown = '';
    await waitFor(
      `x's dialog for ${file}, and the block`,
      async () => {
        const s = await screen();
        if (!dialogAt && DIALOG[kind].test(s)) [dialogAt, shown] = [Date.now(), s];
        if (!blockedAt && blocked()?.question.includes(file)) blockedAt = Date.now();
        return dialogAt && blockedAt;
      },
      90_000,
      50,
    );
    return { dialogAt, blockedAt, shown };
  }

  try {
    // ── 1. "yes": blocked within 2 s, listed, a reminder held, answered; the command runs, the turn ends.
    await post('please make the file\nRUN touch made.txt');
    const one = await dialogOpens('made.txt');
    expect(one.blockedAt - one.dialogAt, 'blocked within 2 s of the dialog showing').toBeLessThanOrEqual(2000);
    expect(blocked()).toMatchObject({ agent: 'x', kind: 'permission' });
    expect(blocked()!.question).toContain('touch made.txt');
    await waitFor('its choices read off its screen', () => blocked()?.choices, 10_000);
    const list = await project.cli(['answer', 'x', '--list']);
    expect(list.exitCode, list.stdout + list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^x waits at a permission dialog since /);
    expect(list.stdout).toMatch(/^ {2}1\. /m);
    const turnStarted = Date.parse(String(project.state().turn_started_at));
    expect(one.blockedAt, 'the dialog opened before the reminder was due').toBeLessThan(turnStarted + TIMEOUT_S * 1000);
    // Past the reminder's due time while the dialog is open: none is typed, the dialog is as it was.
    await sleep(Math.max(0, turnStarted + TIMEOUT_S * 1000 + 1500 - Date.now()));
    expect(events('nudged')).toEqual([]);
    const before = await screen();
    expect(before).toMatch(DIALOG[kind]);
    expect(blocked()?.agent).toBe('x');
    const yes = await project.cli(['answer', 'x', 'yes']);
    expect(yes.exitCode, yes.stdout + yes.stderr).toBe(0);
    expect(yes.stdout).toMatch(/^answered x: 1\. /);
    await waitFor('the command ran', () => existsSync(join(cwd, 'made.txt')), 20_000);
    await waitFor('unblocked', () => events('unblocked').length === 1, 20_000);
    // The turn ends: x's final answer (reply: auto) reaches t, and the turn is t's.
    await waitFor('x replied to t', () => project.archive()[1]?.delivered_at, 60_000);
    expect(project.archive()[1]).toMatchObject({ id: 'msg_0002', sender: 'x', receiver: 't' });
    expect(readRecorder(tLog).typed.some((t) => t.includes('msg_0002 from x'))).toBe(true);

    // ── 2. "no": not run; the screen clears the block; the reminder held meanwhile is typed after.
    await post('now the other one\nRUN touch denied.txt');
    const two = await dialogOpens('denied.txt');
    expect(two.blockedAt - two.dialogAt, 'blocked within 2 s of the dialog showing').toBeLessThanOrEqual(2000);
    await waitFor('its choices read off its screen', () => blocked()?.choices, 10_000);
    const started2 = Date.parse(String(project.state().turn_started_at));
    expect(two.blockedAt, 'the dialog opened before the reminder was due').toBeLessThan(started2 + TIMEOUT_S * 1000);
    await sleep(Math.max(0, started2 + TIMEOUT_S * 1000 + 1500 - Date.now()));
    expect(events('nudged')).toEqual([]);
    const no = await project.cli(['answer', 'x', 'no']);
    expect(no.exitCode, no.stdout + no.stderr).toBe(0);
    await waitFor('unblocked again', () => events('unblocked').length === 2, 20_000);
    expect(events('unblocked')[1]).toMatchObject({ agent: 'x', by: 'screen' });
    expect(existsSync(join(cwd, 'denied.txt'))).toBe(false);
    const late = await project.cli(['answer', 'x', 'yes']);
    expect(late.exitCode).toBe(1);
    expect(late.stdout.trim()).toBe('x has no open dialog');
    await waitFor('the reminder, after the dialog closed', () => events('nudged').length > 0, 30_000);
    const unblockedAt = Date.parse(String(events('unblocked')[1]!.ts));
    expect(Date.parse(String(events('nudged')[0]!.ts))).toBeGreaterThan(unblockedAt);
    const answered = events('answered');
    expect(answered.map((e) => [e.agent, e.by])).toEqual([
      ['x', 'cli'],
      ['x', 'cli'],
    ]);
    expect(events('blocked').length).toBe(2);
    expect(existsSync(join(cwd, 'denied.txt'))).toBe(false);
    console.log(
      `[e2e blocked] ${kind} ${VERSIONS[kind]}: blocked ${one.blockedAt - one.dialogAt} ms / ${two.blockedAt - two.dialogAt} ms after the dialog showed (negative: before, from its hook)`,
    );
  } catch (err) {
    await keep(err);
  }
}

/** `agents.x.allow: ["touch"]` written at up into the client's own settings: its dialog never opens. */
async function allowed(kind: Client): Promise<void> {
  const { project, cwd, post, keep } = await setUp(kind, { allow: ['touch'] });
  try {
    await post('please make the file\nRUN touch allowed.txt');
    await waitFor('the command ran', () => existsSync(join(cwd, 'allowed.txt')), 90_000);
    await waitFor('x replied to t', () => project.archive()[1]?.delivered_at, 60_000);
    expect(project.events().filter((e) => e.event === 'blocked')).toEqual([]);
  } catch (err) {
    await keep(err);
  }
}

/** The model asks the user a question (Claude Code AskUserQuestion, Gemini CLI ask_user): answered by a label. */
async function question(kind: Client): Promise<void> {
  const { project, post, keep } = await setUp(kind);
  const blocked = () => (project.state().blocked as Blocked | null | undefined) ?? null;
  try {
    await post('pick one for me\nASK A QUESTION');
    await waitFor('blocked at its question, its choices read', () => blocked()?.choices, 90_000);
    expect(blocked()).toMatchObject({ agent: 'x', kind: 'question' });
    expect(blocked()!.question).toContain('Which color should we use?');
    expect(
      blocked()!
        .choices!.slice(0, 2)
        .map((c) => c.label),
    ).toEqual(['Red', 'Blue']);
    const blue = await project.cli(['answer', 'x', 'blue']);
    expect(blue.exitCode, blue.stdout + blue.stderr).toBe(0);
    expect(blue.stdout.trim()).toBe('answered x: 2. Blue');
    // The model got the answer as its tool's result, and the turn went on: x's reply reached t.
    const results = () =>
      mock!.requests.flatMap((r) =>
        ((r as { toolResults?: Array<{ text: string }> }).toolResults ?? []).map((t) => t.text),
      );
    await waitFor("the model got 'Blue'", () => results().some((t) => t.includes('Blue')), 30_000);
    await waitFor('x replied to t', () => project.archive()[1]?.delivered_at, 60_000);
    expect(project.events().filter((e) => e.event === 'answered')).toMatchObject([
      { agent: 'x', choice: 'Blue', by: 'cli' },
    ]);
  } catch (err) {
    await keep(err);
  }
}

/**
 * Claude Code's start-up dialogs — folder trust, the API key — show only on its screen: the holder is blocked,
 * answered "yes", and goes on.
 */
async function startUp(which: 'trust' | 'key'): Promise<void> {
  const { project, keep } = await setUp('claude', { startUp: which });
  const blocked = () => (project.state().blocked as Blocked | null | undefined) ?? null;
  const kind = which === 'trust' ? 'trust' : 'login';
  try {
    await waitFor(`blocked at the ${which} dialog, its choices read`, () => blocked()?.choices, 90_000);
    expect(blocked()).toMatchObject({ agent: 'x', kind });
    const yes = await project.cli(['answer', 'x', 'yes']);
    expect(yes.exitCode, yes.stdout + yes.stderr).toBe(0);
    expect(yes.stdout).toMatch(
      which === 'trust' ? /^answered x: \d\. Yes, I trust this folder$/ : /^answered x: \d\. Yes$/,
    );
    await waitFor('unblocked by its screen', () => project.events().some((e) => e.event === 'unblocked'), 20_000);
    // The holder can take its topic now; its reply reaches t.
    const start = await project.cli(['start', 'please open the conversation']);
    expect(start.exitCode, start.stdout + start.stderr).toBe(0);
    await waitFor('x replied to t', () => project.archive()[0]?.delivered_at, 90_000);
    expect(project.archive()[0]).toMatchObject({ sender: 'x', receiver: 't' });
  } catch (err) {
    await keep(err);
  }
}

/** The clients to run (blocked-claude-newest.test.ts runs this file once more for Claude Code alone). */
const only = (kinds: readonly Client[]): Client[] =>
  kinds.filter((k) => !process.env.BATON_E2E_ONLY || process.env.BATON_E2E_ONLY === k);

describe('a dialog with the real clients: blocked, answered from baton, the conversation goes on', () => {
  for (const kind of only(['claude', 'codex', 'gemini']))
    it(`${kind}: yes runs the command and the turn ends; no denies it, a held reminder follows`, async () => {
      await scenario(kind);
    }, 600_000);
  // Codex asks its questions (request_user_input) only in Plan mode (measured): not here.
  for (const kind of only(['claude', 'gemini']))
    it(`${kind}: a question to the user, blocked as one and answered by a choice's label`, async () => {
      await question(kind);
    }, 600_000);
  for (const which of only(['claude']).length ? (['trust', 'key'] as const) : [])
    it(`claude: its start-up ${which} dialog, seen only on its screen, blocks the holder until answered`, async () => {
      await startUp(which);
    }, 600_000);
  for (const kind of only(['claude', 'codex', 'gemini']))
    it(`${kind}: a command its agents.NAME.allow names runs with no dialog`, async () => {
      await allowed(kind);
    }, 600_000);
});
