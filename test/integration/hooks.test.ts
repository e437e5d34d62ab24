/**
 * Delivery verified by the agent itself, on a private tmux server with the stand-in for
 * Claude Code's screen (fixtures/fake-claude.mjs --hooks), which runs the hooks `baton up` installs in
 * its folder the way Claude Code does: UserPromptSubmit with the prompt at submit, Stop with its final
 * reply once it answered. (test/e2e/claude.test.ts does the same with the real Claude Code.)
 */
import { execa } from 'execa';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project, ROOT, waitFor } from '../helpers/harness.js';

const FAKE_CLAUDE = join(ROOT, 'test', 'fixtures', 'fake-claude.mjs');
let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

/**
 * Each agent's Claude Code folder inside the test's own (CLAUDE_CONFIG_DIR in its env, as a user would set
 * it): the stand-in keeps its transcript there, the one place baton reads a Claude Code transcript.
 */
function claudeFolders(project: Project): void {
  const c = JSON.parse(readFileSync(project.configFile, 'utf8'));
  for (const [name, a] of Object.entries(c.agents as Record<string, { env?: Record<string, string> }>))
    a.env = { ...a.env, CLAUDE_CONFIG_DIR: join(project.dir, 'claude-config', name) };
  project.writeConfig(c);
}

const fake = (name: string, flags = '') =>
  `node ${JSON.stringify(FAKE_CLAUDE)} ${JSON.stringify(`../../${name}.log`)} --hooks ${flags}`.trim();

describe('a delivery its hook never confirmed', () => {
  it("the agent's hooks work but say nothing of one message, its box is empty and it has not answered: typed again, flagged, once", async () => {
    p = new Project({
      agents: {
        claude1: { kind: 'claude', command: fake('claude1'), reply: 'auto' },
        // Its second submit (msg_0003) leaves the box empty, but its model never gets it.
        claude2: { kind: 'claude', command: fake('claude2', '--lose 2'), reply: 'auto' },
      },
      turns: { policy: 'alternate', max_turns: 4 },
      delivery: { enter_delay_ms: 100 },
    });
    // The daemon starts in the tmux server this `up` starts, with its environment: a short receipt bound.
    const up = await p.cli(['up', '--topic', 'a lost prompt'], { env: { BATON_RECEIPT_BOUND_MS: '1500' } });
    expect(up.exitCode, up.stderr).toBe(0);
    await waitFor(
      'the conversation to end by max_turns',
      () => (p!.state().finished as { reason?: string } | undefined)?.reason === 'max_turns',
      60_000,
    );
    await waitFor('every receipt', () => p!.archive().every((r) => (r as { received?: unknown }).received), 15_000);
    const records = p.archive() as Array<
      ReturnType<Project['archive']>[number] & { redelivered?: boolean; received?: { intact: boolean } }
    >;
    expect(records.map((r) => [r.id, r.content, r.redelivered ?? false])).toEqual([
      ['msg_0001', 'reply to user_0001', false],
      ['msg_0002', 'reply to msg_0001', false],
      ['msg_0003', 'reply to msg_0002', true],
      ['msg_0004', 'reply to msg_0003', false],
    ]);
    expect(records.every((r) => r.received?.intact)).toBe(true);
    // What claude2's model got: msg_0001, then msg_0003 once — typed again with its flag.
    const got = readFileSync(join(p.dir, 'claude2.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { text: string }).text.split('\n')[0]!)
      .filter((h) => h.startsWith('[baton] msg_'));
    expect(got).toEqual([
      '[baton] msg_0001 from claude1',
      '[baton] msg_0003 from claude1 (reply to msg_0002) [response] (redelivered)',
    ]);
    const events = p.events();
    expect(events.filter((e) => e.event === 'delivery_unconfirmed').map((e) => e.id)).toEqual(['msg_0003']);
    expect(events.filter((e) => e.event === 'redelivered').map((e) => e.id)).toEqual(['msg_0003']);
  });
});

describe('hook receipts and automatic replies', () => {
  it('reply "auto": each final reply becomes the agent\'s message, every delivery has a receipt, a changed prompt is caught, the user\'s own hooks stay', async () => {
    p = new Project({
      agents: {
        claude1: { kind: 'claude', command: fake('claude1'), reply: 'auto' },
        claude2: { kind: 'claude', command: fake('claude2', '--mangle'), reply: 'auto' },
      },
      turns: { policy: 'alternate', max_turns: 6 },
      delivery: { enter_delay_ms: 100 },
    });
    // The user's own settings in claude1's folder: kept, with baton's hooks added beside them.
    const mine = join(p.dir, 'agents', 'claude1', '.claude');
    mkdirSync(mine, { recursive: true });
    writeFileSync(
      join(mine, 'settings.local.json'),
      JSON.stringify({
        permissions: { allow: ['Bash(ls:*)'] },
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true # mine' }] }] },
      }),
    );

    const up = await p.cli(['up', '--topic', 'how to name things']);
    expect(up.exitCode, up.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(mine, 'settings.local.json'), 'utf8'));
    expect(settings.permissions).toEqual({
      allow: ['Bash(ls:*)', 'mcp__baton__post', 'mcp__baton__status', 'mcp__baton__transcript'],
    });
    expect(settings.enabledMcpjsonServers).toEqual(['baton']);
    const mcp = JSON.parse(readFileSync(join(p.dir, 'agents', 'claude1', '.mcp.json'), 'utf8'));
    expect(mcp.mcpServers.baton.args.slice(1, 4)).toEqual(['mcp', '--as', 'claude1']);
    expect(JSON.stringify(settings.hooks.Stop)).toContain('true # mine');
    expect(Object.keys(settings.hooks).sort()).toEqual([
      'Notification',
      'PermissionRequest',
      'PostToolUse',
      'PostToolUseFailure',
      'Stop',
      'UserPromptSubmit',
    ]);
    // The late Notification only for a dialog; a tool that ran only while a dialog is open (a shell test first).
    expect(settings.hooks.Notification[0].matcher).toBe('permission_prompt|elicitation_dialog');
    expect(settings.hooks.PostToolUse[0].hooks[0].command).toMatch(/^\[ -e '[^']+\/\.dialog-open' \] && .* hook ran /);

    await waitFor(
      'the conversation to end by max_turns',
      () => (p!.state().finished as { reason?: string } | undefined)?.reason === 'max_turns',
      60_000,
    );
    // The last receipt may come just after the stamp.
    await waitFor('every receipt', () => p!.archive().every((r) => (r as { received?: unknown }).received), 15_000);
    const records = p.archive() as Array<
      ReturnType<Project['archive']>[number] & {
        sender: string;
        receiver: string;
        auto?: boolean;
        confirmed?: string;
        received?: { intact: boolean; at: string };
      }
    >;
    const msgs = records.filter((r) => r.id.startsWith('msg_'));
    expect(msgs.map((r) => r.id)).toEqual(['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004', 'msg_0005', 'msg_0006']);
    // The opening answers the topic (user_0001); each reply after it names the message it answers.
    expect(msgs.map((r) => r.content)).toEqual([
      'reply to user_0001',
      'reply to msg_0001',
      'reply to msg_0002',
      'reply to msg_0003',
      'reply to msg_0004',
      'reply to msg_0005',
    ]);
    expect(msgs.map((r) => r.reply_to)).toEqual([null, 'msg_0001', 'msg_0002', 'msg_0003', 'msg_0004', 'msg_0005']);
    for (const r of msgs) {
      expect(r.auto, r.id).toBe(true);
      expect(r.confirmed, r.id).toBe('hook');
      // claude2's client "changes" each prompt (--mangle): its receipts say so; claude1's are intact.
      expect(r.received?.intact, r.id).toBe(r.receiver === 'claude1');
    }
    // The topic a person set (user_0001) was received too.
    const topic = JSON.parse(readFileSync(p.path('archive', 'user_0001.json'), 'utf8')) as {
      kickoff?: boolean;
      received?: { intact: boolean };
    };
    expect(topic.kickoff).toBe(true);
    await waitFor(
      "the topic's receipt",
      () => JSON.parse(readFileSync(p!.path('archive', 'user_0001.json'), 'utf8')).received,
      10_000,
    );
    expect(JSON.parse(readFileSync(p.path('archive', 'user_0001.json'), 'utf8')).received.intact).toBe(true);
    // Each receipt's event agrees with its record (an event may be missing: the log is a record, not the truth).
    const received = p.events().filter((e) => e.event === 'received');
    expect(received.length).toBeGreaterThan(0);
    for (const e of received) expect(e.intact, String(e.id)).toBe(String(e.agent) === 'claude1');
    const st = JSON.parse((await p.cli(['status', '--json'])).stdout) as {
      agents: Record<string, { hooks: { state: string } | null }>;
    };
    expect(st.agents.claude1!.hooks?.state).toMatch(/^(idle|busy)$/);
    expect(st.agents.claude2!.hooks?.state).toMatch(/^(idle|busy)$/);
  }, 120_000);

  it('tokens: each turn counted from the transcript on the message that opened it, summed per agent; max_tokens ends the conversation', async () => {
    p = new Project({
      agents: {
        claude1: { kind: 'claude', command: fake('claude1'), reply: 'auto' },
        claude2: { kind: 'claude', command: fake('claude2'), reply: 'auto' },
      },
      turns: { policy: 'alternate', max_tokens: 500 },
      delivery: { enter_delay_ms: 100 },
    });
    claudeFolders(p);
    const up = await p.cli(['up', '--topic', 'a budget']);
    expect(up.exitCode, up.stderr).toBe(0);
    await waitFor(
      'the conversation to end by max_tokens',
      () => (p!.state().finished as { reason?: string } | undefined)?.reason === 'max_tokens',
      60_000,
    );
    // Each fake turn costs 135 tokens (100 in, 10 out, 5 cache written, 20 cache read): the 4th reaches
    // 500 and ends it. (The agents' turns on the notice that it finished still count, later.)
    const PER_TURN = { input: 100, output: 10, cache_creation: 5, cache_read: 20 };
    const tokens = p.state().tokens as { total: number; by_agent: Record<string, number> };
    expect(tokens.total).toBeGreaterThanOrEqual(540);
    expect(tokens.total % 135).toBe(0);
    expect(tokens.by_agent.claude1! + tokens.by_agent.claude2!).toBe(tokens.total);
    expect(p.archive().filter((r) => r.delivered_at).length).toBeLessThanOrEqual(4);
    await waitFor(
      'the turns counted on the messages that opened them',
      () =>
        p!
          .archive()
          .slice(0, 3)
          .every((r) => (r as { turn_tokens?: unknown }).turn_tokens),
      10_000,
    );
    expect(JSON.parse(readFileSync(p.path('archive', 'user_0001.json'), 'utf8')).turn_tokens).toEqual(PER_TURN);
    for (const r of p.archive().slice(0, 3))
      expect((r as { turn_tokens?: unknown }).turn_tokens, r.id).toEqual(PER_TURN);
    const st = JSON.parse((await p.cli(['status', '--json'])).stdout) as {
      tokens: { total: number; by_agent: Record<string, number>; max: number };
    };
    expect(st.tokens.max).toBe(500);
    expect(st.tokens.total).toBeGreaterThanOrEqual(540);
    expect((await p.cli(['status'])).stdout).toMatch(/tokens {8}\d+ of max 500 \(claude1 \d+, claude2 \d+\)/);
  }, 120_000);

  it('post --wait: prints the ID once delivered, or once received (the hook), and says why when it cannot', async () => {
    p = new Project({
      agents: {
        claude1: { kind: 'claude', command: fake('claude1') },
        claude2: { kind: 'claude', command: fake('claude2') },
      },
      delivery: { enter_delay_ms: 100 },
    });
    const up = await p.cli(['up']);
    expect(up.exitCode, up.stderr).toBe(0);
    const received = await p.cli(['post', '--as', 'claude1', '--wait', '--until', 'received', 'are you there?']);
    expect([received.exitCode, received.stdout.trim()], received.stderr).toEqual([0, 'msg_0001']);
    expect((p.archive()[0] as { received?: { intact: boolean } }).received?.intact).toBe(true);
    const delivered = await p.cli(['post', '--as', 'claude2', '--wait', '--json', 'yes']);
    expect(delivered.exitCode, delivered.stderr).toBe(0);
    expect(JSON.parse(delivered.stdout)).toMatchObject({ id: 'msg_0002', from: 'claude2', to: 'claude1' });
    expect(JSON.parse(delivered.stdout).delivered_at).toBeTruthy();
    // Out of turn: it waits in its folder; the command gives up and says whose turn it is.
    const held = await p.cli(['post', '--as', 'claude2', '--wait', '--timeout', '1', 'me again']);
    expect(held.exitCode).toBe(1);
    expect(held.stderr).toContain('claude1 holds the turn');
    const misuse = await p.cli(['post', '--as', 'claude1', '--until', 'received', 'x']);
    expect(misuse.exitCode).toBe(2);
  }, 60_000);

  it('the hook command never blocks or breaks the agent: a spool it cannot write, no daemon, garbage on stdin', async () => {
    p = new Project();
    const run = (args: string[], input: string) =>
      execa('node', [CLI, 'hook', ...args], { input, reject: false, timeout: 10_000 });
    // Cannot write: exit 0, nothing on stdout (Claude Code would add it to the model's context), one line on stderr.
    const bad = await run(
      ['prompt', '--agent', 'claude1', '--spool', '/proc/baton-cannot-write-here/claude1'],
      '{"prompt":"x"}',
    );
    expect(bad.exitCode).toBe(0);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    // No daemon running: the note waits in the spool for it.
    const spool = p.path('.hooks', 'claude1');
    for (const input of ['{"prompt":"[baton] msg_0001 from claude2\\nhi","prompt_id":"p1"}', 'not json at all', '']) {
      const r = await run(['prompt', '--agent', 'claude1', '--spool', spool], input);
      expect([r.exitCode, r.stdout]).toEqual([0, '']);
    }
    expect(readdirSync(spool).filter((n) => n.endsWith('.json'))).toHaveLength(3);
    // Misused: still exit 0 (a hook must never exit 2: that drops the prompt), and it says how to use it.
    const misuse = await run(['nonsense'], '');
    expect([misuse.exitCode, misuse.stdout]).toEqual([0, '']);
    expect(misuse.stderr).toContain('usage');
  }, 30_000);
});
