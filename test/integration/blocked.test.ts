/**
 * Blocked on a person (docs/protocol.md §12), on a private tmux server with the stand-in for Claude Code's
 * screen (fixtures/fake-claude.mjs --hooks): a prompt with `ASK <command>` makes it open Claude Code's Bash
 * permission dialog and run its PreToolUse / PermissionRequest hooks, and it logs every key typed into the
 * dialog. The conversation is blocked from the hook, shown by status and ls, answered by `baton answer`
 * (the right keys, nothing else), cleared by the tool-ran hook or — for "No", which fires no hook — by the
 * screen; a reminder due meanwhile is held and typed after; a stale answer is refused.
 * (test/e2e/blocked-*.test.ts do the same with the real clients.)
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project, ROOT, waitFor } from '../helpers/harness.js';

const FAKE_CLAUDE = join(ROOT, 'test', 'fixtures', 'fake-claude.mjs');
let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const fake = (name: string, flags = '--hooks') =>
  `node ${JSON.stringify(FAKE_CLAUDE)} ${JSON.stringify(`../../${name}.log`)} ${flags}`.trim();

/** What the stand-in logged: prompts it got, commands it ran or was denied, keys typed into its dialog. */
function agentLog(project: Project, name: string): Array<Record<string, string | number>> {
  return readFileSync(join(project.dir, `${name}.log`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string | number>);
}

const DIRECTIONS = { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] };

type Blocked = { agent: string; kind: string; question: string; since: string; choices?: unknown[]; dialog?: string };
const blocked = (project: Project) => (project.state().blocked as Blocked | null | undefined) ?? null;

function twoAgents(turns: Record<string, unknown> = {}): Project {
  return new Project({
    agents: {
      a: { kind: 'claude', command: fake('a'), reply: 'auto' },
      b: { kind: 'claude', command: fake('b'), reply: 'auto' },
    },
    directions: DIRECTIONS,
    turns: { policy: 'alternate', ...turns },
    delivery: { enter_delay_ms: 100 },
  });
}

describe('the turn holder at a permission dialog', () => {
  it('blocked from its hook, shown, a reminder held, answered "yes" by the keys that pick it; the tool runs, the turn goes on', async () => {
    p = twoAgents({ timeout_s: 2, max_nudges: 1 });
    const up = await p.cli(['up', '--topic', 'ASK touch made.txt']);
    expect(up.exitCode, up.stderr).toBe(0);
    const project = p;
    await waitFor('a blocked from its hook', () => blocked(project)?.agent === 'a', 20_000);
    expect(blocked(p)).toMatchObject({ kind: 'permission', question: 'Bash: touch made.txt (Run it)' });
    await waitFor('its choices read off its screen', () => blocked(project)?.choices, 5000);

    const status = JSON.parse((await p.cli(['status', '--json'])).stdout) as { blocked: Blocked };
    expect(status.blocked.choices).toEqual([
      { n: 1, label: 'Yes' },
      { n: 2, label: 'Yes, and always allow access to cwd/ from this project' },
      { n: 3, label: 'No' },
    ]);
    expect((await p.cli(['status'])).stdout).toMatch(
      /^blocked +a waits for a person since .*: permission — Bash: touch made\.txt/m,
    );
    const ls = await execa('node', [CLI, 'ls', '--json'], { env: p.env, cwd: tmpdir(), reject: false });
    const row = (JSON.parse(ls.stdout) as { conversations: Array<{ folder: string; blocked?: Blocked }> })
      .conversations[0];
    expect(row?.blocked).toMatchObject({ agent: 'a', kind: 'permission' });
    expect((await execa('node', [CLI, 'ls'], { env: p.env, cwd: tmpdir(), reject: false })).stdout).toMatch(
      /running, blocked: a \(permission\)/,
    );
    const list = await p.cli(['answer', 'a', '--list']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toMatch(
      /^a waits at a permission dialog since .*:\n {2}Bash: touch made\.txt \(Run it\)\n {2}1\. Yes\n/,
    );

    const listed = JSON.parse((await p.cli(['answer', 'a', '--list', '--json'])).stdout) as Record<string, unknown>;
    expect(listed).toMatchObject({ agent: 'a', kind: 'permission', question: 'Bash: touch made.txt (Run it)' });
    expect(listed.dialog).toMatch(/^[0-9a-f]{16}$/);
    expect(listed.choices).toEqual(status.blocked.choices);

    // Past timeout_s while it waits: the turn clock stands still, nothing is typed into the dialog.
    await reminderDue(p, 2, 1000);
    expect(p.events().filter((e) => e.event === 'nudged')).toEqual([]);
    expect(agentLog(p, 'a').filter((l) => 'into_dialog' in l)).toEqual([]);

    const yes = await p.cli(['answer', 'a', 'yes']);
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect(yes.stdout.trim()).toBe('answered a: 1. Yes');
    await waitFor('the command ran', () => agentLog(project, 'a').some((l) => l.ran === 'touch made.txt'), 5000);
    await waitFor('unblocked', () => project.events().some((e) => e.event === 'unblocked'), 5000);
    await waitFor('the turn goes on: a reply reached b', () => project.archive()[0]?.delivered_at, 15_000);
    expect(p.archive()[0]).toMatchObject({ sender: 'a', receiver: 'b', content: 'reply to user_0001' });

    const events = p.events();
    const order = events.filter((e) => ['blocked', 'answered', 'unblocked'].includes(e.event));
    expect(order.map((e) => e.event)).toEqual(['blocked', 'answered', 'unblocked']);
    expect(order[0]).toMatchObject({ agent: 'a', kind: 'permission', question: 'Bash: touch made.txt (Run it)' });
    expect(order[1]).toMatchObject({ agent: 'a', choice: 'Yes', n: 1, by: 'cli' });
    expect(order[2]).toMatchObject({ agent: 'a', by: 'hook' });
    expect(agentLog(p, 'a').filter((l) => 'into_dialog' in l)).toEqual([]);
    expect(blocked(p)).toBeNull();
    // The time it waited counted for nothing: the turn's clock ran only while nobody was asked.
    expect((p.state().blocked_ms as number) > 3000).toBe(true);
  });

  it('"no": no hook fires, its screen clears the block; the reminder held meanwhile is typed after; a stale answer is refused', async () => {
    p = twoAgents({ timeout_s: 2, max_nudges: 1 });
    const up = await p.cli(['up', '--topic', 'ASK rm -f nothing']);
    expect(up.exitCode, up.stderr).toBe(0);
    const project = p;
    await waitFor('its choices read off its screen', () => blocked(project)?.choices, 20_000);
    await reminderDue(p, 2, 500); // a reminder would be due now
    const no = await p.cli(['answer', 'a', 'no']);
    expect(no.stdout.trim()).toBe('answered a: 3. No');
    await waitFor('denied', () => agentLog(project, 'a').some((l) => l.denied), 5000);
    const denied = agentLog(p, 'a').find((l) => l.denied)!.t as number;
    await waitFor('unblocked by its screen', () => project.events().find((e) => e.event === 'unblocked'), 5000);
    expect(p.events().find((e) => e.event === 'unblocked')).toMatchObject({ agent: 'a', by: 'screen' });
    // The reminder, now that nothing waits for a person: typed into the box, after the dialog closed.
    await waitFor('the reminder', () => project.events().some((e) => e.event === 'nudged'), 10_000);
    const reminder = agentLog(p, 'a').find((l) => String(l.text ?? '').startsWith('[baton] reminder 1/1'));
    expect(reminder && (reminder.t as number) > denied).toBe(true);
    expect(agentLog(p, 'a').filter((l) => 'into_dialog' in l)).toEqual([]);
    // Answering a dialog that has closed: refused, nothing typed.
    const late = await p.cli(['answer', 'a', 'yes']);
    expect(late.exitCode).toBe(1);
    expect(late.stdout.trim()).toBe('a has no open dialog');
    expect(agentLog(p, 'a').filter((l) => 'ran' in l)).toEqual([]);
  });

  it('misuse is one line (then the usage), exit 2', async () => {
    p = twoAgents();
    const misuse = {
      answer: /^baton answer: name the agent whose dialog to answer$/,
      'answer nobody yes': /^baton answer: unknown agent "nobody" \(agents: a, b\)$/,
      'answer a': /^baton answer: give a CHOICE, or --list to see the choices$/,
      'answer a yes --list': /^baton answer: give a CHOICE, or --list to see the choices$/,
    };
    for (const [args, line] of Object.entries(misuse)) {
      const r = await p.cli(args.split(' '));
      expect(r.exitCode, args).toBe(2);
      expect(r.stderr.trim().split('\n'), args).toEqual([
        expect.stringMatching(line),
        expect.stringMatching(/^Usage: /),
      ]);
    }
  });
});

describe('telling a person', () => {
  it('a webhook gets one blocked event for the dialog, with what it asks; the answer sends no other', async () => {
    const got: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d.toString('utf8');
      });
      req.on('end', () => {
        got.push(body);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      p = twoAgents();
      const config = JSON.parse(readFileSync(p.configFile, 'utf8')) as Record<string, unknown>;
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      p.writeConfig({ ...config, notify: [{ webhook: url, events: ['blocked'] }] });
      const up = await p.cli(['up', '--topic', 'ASK touch told.txt']);
      expect(up.exitCode, up.stderr).toBe(0);
      const project = p;
      await waitFor('the webhook', () => got.length > 0, 20_000);
      expect(JSON.parse(got[0]!)).toMatchObject({
        event: 'blocked',
        agent: 'a',
        details: { kind: 'permission', question: 'Bash: touch told.txt (Run it)' },
      });
      await waitFor('its choices read off its screen', () => blocked(project)?.choices, 5000);
      expect((await p.cli(['answer', 'a', 'yes'])).exitCode).toBe(0);
      await waitFor('the turn goes on: a reply reached b', () => project.archive()[0]?.delivered_at, 15_000);
      expect(got).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('dialogs no hook reports, and agents that do not hold the turn', () => {
  it('a start-up dialog shows only on the screen: the holder is blocked from it, and answered there', async () => {
    p = new Project({
      agents: { a: { kind: 'claude', command: fake('a', '--dialog') }, b: { kind: 'claude', command: fake('b') } },
      directions: DIRECTIONS,
      turns: { policy: 'alternate' },
    });
    const up = await p.cli(['up']);
    expect(up.exitCode, up.stderr).toBe(0);
    const project = p;
    await waitFor('a blocked from its screen', () => blocked(project)?.choices, 15_000);
    expect(blocked(p)).toMatchObject({ agent: 'a', kind: 'trust', question: 'Do you trust the files in this folder?' });
    const yes = await p.cli(['answer', 'a', 'yes']);
    expect(yes.stdout.trim()).toBe('answered a: 1. Yes, proceed');
    await waitFor('unblocked', () => project.events().some((e) => e.event === 'unblocked'), 5000);
  });

  it('a dialog drawn at once after the Enter: the text was submitted, no second Enter answers it', async () => {
    // No hooks: the screen alone confirms the submit, and it shows the dialog where the box was.
    p = new Project({
      agents: {
        a: { kind: 'claude', command: fake('a', '--answer-ms 0') },
        b: { kind: 'claude', command: fake('b', '--answer-ms 0') },
      },
      directions: DIRECTIONS,
      turns: { policy: 'alternate' },
      delivery: { enter_delay_ms: 100 },
    });
    const up = await p.cli(['up', '--topic', 'ASK touch fast.txt']);
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    const project = p;
    await waitFor('a blocked from its screen', () => blocked(project)?.choices, 20_000);
    expect(p.events().filter((e) => e.event === 'sent')).toHaveLength(1);
    expect(p.events().filter((e) => /failed|unconfirmed/.test(e.event))).toEqual([]);
    expect(agentLog(p, 'a').filter((l) => 'into_dialog' in l)).toEqual([]);
  });

  it('a non-holder at a dialog: shown per agent, its pane held, the conversation not blocked', async () => {
    p = twoAgents();
    const up = await p.cli(['up']);
    expect(up.exitCode, up.stderr).toBe(0);
    const sent = await p.cli(['send', '--to', 'b', 'ASK make test']);
    expect(sent.exitCode, sent.stderr).toBe(0);
    const project = p;
    const dialogOf = async () =>
      (JSON.parse((await project.cli(['status', '--json'])).stdout) as { agents: { b: { dialog: unknown } } }).agents.b
        .dialog;
    await waitFor(
      'b shown at a dialog',
      async () => ((await dialogOf()) as { choices?: unknown } | null)?.choices,
      15_000,
    );
    expect(await dialogOf()).toMatchObject({
      kind: 'permission',
      question: 'Bash: make test (Run it)',
      source: 'hook',
    });
    expect(blocked(p)).toBeNull();
    // A person's note for b waits: it would answer the dialog.
    const note = await p.cli(['send', '--to', 'b', 'please hurry']);
    expect(note.exitCode).toBe(1);
    expect(note.stdout).toMatch(/b waits at a dialog for a person/);
    expect(agentLog(p, 'b').filter((l) => 'into_dialog' in l)).toEqual([]);
    expect(p.events().filter((e) => e.event === 'blocked')).toEqual([]);
  });
});

/** Until the turn's first reminder (timeout_s after the turn began) has been due for `pastMs`. */
async function reminderDue(p: Project, timeoutS: number, pastMs: number): Promise<void> {
  await waitFor('a reminder due', () => {
    const started = p.state().turn_started_at as string | undefined;
    return !!started && Date.now() > Date.parse(started) + timeoutS * 1000 + pastMs;
  });
}
