/**
 * Blocked on a person on the PostgreSQL bus (docs/protocol.md §12): the conversation's row in the database
 * carries `blocked` while the turn holder waits at a dialog — `ls --bus` and `status` on any machine show it
 * — and `baton answer` reaches the daemon through the database's requests. The stand-in for Claude Code
 * (fixtures/fake-claude.mjs --hooks) opens its Bash permission dialog for a prompt line `ASK <command>`.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project, ROOT, waitFor } from '../helpers/harness.js';
import { query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
const FAKE_CLAUDE = join(ROOT, 'test', 'fixtures', 'fake-claude.mjs');
let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const fake = (name: string) => `node ${JSON.stringify(FAKE_CLAUDE)} ${JSON.stringify(`../../${name}.log`)} --hooks`;

const row = async (conv: string) =>
  (
    await query<{ state: Record<string, unknown> }>(
      server.url,
      'SELECT state FROM baton.conversations WHERE name = $1',
      [conv],
    )
  )[0]?.state;

describe('blocked on the PostgreSQL bus', () => {
  it("the conversation's row says who waits for a person; ls --bus shows it; answer goes through the database", async () => {
    const conv = `blocked-${process.pid}`;
    p = new Project({
      agents: {
        a: { kind: 'claude', command: fake('a'), reply: 'auto' },
        b: { kind: 'claude', command: fake('b'), reply: 'auto' },
      },
      directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
      turns: { policy: 'alternate' },
      bus: { kind: 'postgres', url: server.url, conversation: conv },
    });
    const up = await p.cli(['up', '--topic', 'ASK touch made.txt']);
    expect(up.exitCode, up.stderr).toBe(0);
    await waitFor(
      "a blocked in the conversation's row, its choices read",
      async () => ((await row(conv))?.blocked as { choices?: unknown } | undefined)?.choices,
      20_000,
    );
    expect((await row(conv))?.blocked).toMatchObject({
      agent: 'a',
      kind: 'permission',
      question: 'Bash: touch made.txt (Run it)',
    });
    const ls = await execa('node', [CLI, 'ls', '--bus', server.url, '--json'], {
      env: p.env,
      cwd: tmpdir(),
      reject: false,
    });
    const listed = (JSON.parse(ls.stdout) as { conversations: Array<{ conversation: string; blocked?: unknown }> })
      .conversations;
    expect(listed.find((c) => c.conversation === conv)?.blocked).toMatchObject({ agent: 'a', kind: 'permission' });
    const text = await execa('node', [CLI, 'ls', '--bus', server.url], { env: p.env, cwd: tmpdir(), reject: false });
    expect(text.stdout).toMatch(/blocked: a \(permission\)/);
    const status = JSON.parse((await p.cli(['status', '--json'])).stdout) as { blocked: unknown };
    expect(status.blocked).toMatchObject({ agent: 'a', kind: 'permission' });

    const yes = await p.cli(['answer', 'a', 'yes']);
    expect(yes.exitCode, yes.stdout + yes.stderr).toBe(0);
    expect(yes.stdout.trim()).toBe('answered a: 1. Yes');
    const project = p;
    const ran = () =>
      readFileSync(join(project.dir, 'a.log'), 'utf8')
        .split('\n')
        .some((l) => l.includes('"ran":"touch made.txt"'));
    await waitFor('the command ran', ran, 5000);
    await waitFor('unblocked in the row', async () => (await row(conv))?.blocked === null, 10_000);
    // The row is written before its event is appended: wait for the event, not the moment after the row.
    const named = async () =>
      (
        await query<{ body: { event: string } }>(
          server.url,
          'SELECT body FROM baton.events WHERE conversation = $1 ORDER BY seq',
          [conv],
        )
      )
        .map((e) => e.body.event)
        .filter((e) => ['blocked', 'answered', 'unblocked'].includes(e));
    await waitFor('the unblocked event', async () => (await named()).includes('unblocked'), 10_000);
    expect(await named()).toEqual(['blocked', 'answered', 'unblocked']);
  });

  it("another machine sees who blocks the conversation, lists the dialog's choices and answers it", async () => {
    const conv = `blocked-far-${process.pid}`;
    const config = {
      message_dir: './messages',
      agents: {
        a: { kind: 'claude', command: fake('a'), reply: 'auto', host: 'alpha' },
        b: { kind: 'claude', command: fake('b'), reply: 'auto', host: 'beta' },
      },
      directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
      turns: { policy: 'alternate' },
      bus: { kind: 'postgres', url: server.url, conversation: conv },
    };
    const alpha = machine('alpha', config);
    const beta = machine('beta', config);
    const up = await alpha.cli(['up', '--topic', 'ASK touch far.txt']);
    expect(up.exitCode, up.stderr).toBe(0);
    await waitFor(
      "a blocked in the conversation's row, its choices read",
      async () => ((await row(conv))?.blocked as { choices?: unknown } | undefined)?.choices,
      20_000,
    );
    // From beta, where a does not run: what the database says.
    const status = JSON.parse((await beta.cli(['status', '--json'])).stdout) as { blocked: unknown };
    expect(status.blocked).toMatchObject({ agent: 'a', kind: 'permission', question: 'Bash: touch far.txt (Run it)' });
    const list = await beta.cli(['answer', 'a', '--list']);
    expect(list.exitCode, list.stdout + list.stderr).toBe(0);
    expect(list.stdout).toMatch(
      /^a waits at a permission dialog since .*:\n {2}Bash: touch far\.txt \(Run it\)\n {2}1\. Yes\n/,
    );
    // The answer goes to alpha's daemon, which types it.
    const yes = await beta.cli(['answer', 'a', 'yes']);
    expect(yes.exitCode, yes.stdout + yes.stderr).toBe(0);
    expect(yes.stdout.trim()).toBe('answered a: 1. Yes');
    await waitFor(
      'the command ran on alpha',
      () => readFileSync(join(alpha.dir, 'a.log'), 'utf8').includes('"ran":"touch far.txt"'),
      10_000,
    );
    await waitFor('unblocked in the row', async () => (await row(conv))?.blocked === null, 10_000);
  });
});
