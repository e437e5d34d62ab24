/**
 * The store changing under a running daemon (docs/protocol.md §10), against a real PostgreSQL: a schema
 * another baton made newer, or a conversation row deleted by hand. The daemon used to go on writing with
 * statements that may no longer fit, or wait in silence; now it writes nothing more and stops (exit 1),
 * saying why. A conversation started anew by another machine (`baton up --fresh`) is followed instead.
 */
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/bus/postgres/migrate.js';
import { readRecorder, waitFor } from '../helpers/harness.js';
import { archived, machinesConfig, query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
let n = 0;
const conversation = () => `store-${process.pid}-${n++}`;

describe('the store changing under a running daemon (PostgreSQL bus)', () => {
  it('a schema made newer while it runs: the daemon stops writing and says so', async () => {
    const conv = conversation();
    // A schema of its own: the version is bumped for this test only.
    const config = machinesConfig(server.url, conv, {
      bus: { kind: 'postgres', url: server.url, conversation: conv, schema: 'newer_test' },
    });
    const a = machine('alpha', config);
    const { proc } = await a.daemon();
    await waitFor('recovered', () => a.output.includes('watching'));
    await query(server.url, 'UPDATE newer_test.meta SET version = $1', [SCHEMA_VERSION + 1]);
    await waitFor('the daemon stopped', () => proc.exitCode !== null, 30_000);
    expect(proc.exitCode).toBe(1);
    expect(a.output).toContain(
      `the database's schema "newer_test" is now version ${SCHEMA_VERSION + 1}, newer than this baton knows (${SCHEMA_VERSION}): upgrade baton`,
    );
  }, 60_000);

  it('its conversation row deleted by hand: the daemon reports it and stops, instead of waiting in silence', async () => {
    const conv = conversation();
    const a = machine('alpha', machinesConfig(server.url, conv));
    const { proc } = await a.daemon();
    await waitFor('recovered', () => a.output.includes('watching'));
    await query(server.url, 'DELETE FROM baton.conversations WHERE name = $1', [conv]);
    a.send('c1_to_c2', 'hello.json', { content: 'into a conversation that is gone' });
    await waitFor('the daemon stopped', () => proc.exitCode !== null, 30_000);
    expect(proc.exitCode).toBe(1);
    expect(a.output).toMatch(
      new RegExp(
        `conversation "${conv}" is gone from postgres://.*: its row was deleted, or set aside by "baton up --fresh" on another machine`,
      ),
    );
  }, 60_000);

  it('up --fresh on one machine: the other follows the new conversation — not fenced, not restarted, nothing flagged', async () => {
    const conv = conversation();
    const config = machinesConfig(server.url, conv, { turns: { max_turns: 4 } });
    for (const a of Object.values(config.agents as Record<string, Record<string, unknown>>)) a.command = 'cat';
    const [a, b] = [machine('alpha', config), machine('beta', config)];
    await a.recorder('claude1', { reply: true });
    const logB = await b.recorder('claude2', { reply: true });
    await a.daemon();
    const beta = await b.daemon();
    a.send('c1_to_c2', 'opening.json', { content: 'the old opening' });
    const delivered = async () => (await archived(server.url, conv)).filter((r) => r.delivered_at).length;
    await waitFor(
      'the old conversation finished',
      async () => (await delivered()) === 4 && (await a.status())?.finished,
      60_000,
    );

    // alpha starts a new conversation (its own daemon stopped and started again by up, in its watcher session).
    const fresh = await a.cli(['up', '--fresh']);
    expect(fresh.exitCode, fresh.stderr + fresh.stdout).toBe(0);
    expect(fresh.stdout).toMatch(new RegExp(`previous conversation moved to conversation "${conv}@`));
    a.send('c1_to_c2', 'new.json', { content: 'the new opening' });
    await waitFor(
      'the new conversation finished',
      async () => (await delivered()) === 4 && (await a.status())?.finished,
      60_000,
    );

    // beta's daemon followed it: the same process, never fenced nor restarted, told it in its log.
    expect(beta.proc.exitCode).toBeNull();
    expect(b.output).toContain(`conversation "${conv}" was started anew`);
    expect(b.output).not.toMatch(/took over|fenced|lease was lost|stopped \(/);
    const records = await archived(server.url, conv);
    expect(records.map((r) => r.content)).toEqual([
      'the new opening',
      'reply to msg_0001',
      'reply to msg_0002',
      'reply to msg_0003',
    ]);
    expect(records.filter((r) => r.redelivered)).toEqual([]);
    // The new first message typed into beta's pane once, unflagged; nothing of the old one typed after it.
    const typed = readRecorder(logB).pastes;
    const first = typed.findIndex((t) => t.includes('the new opening'));
    expect(typed[first]!.split('\n')[0]).toBe('[baton] msg_0001 from claude1');
    expect(typed.filter((t) => t.includes('the new opening'))).toHaveLength(1);
    expect(typed.slice(first).some((t) => t.includes('the old opening'))).toBe(false);
    // The old conversation is kept whole under its new name.
    const old = await query<{ name: string }>(server.url, 'SELECT name FROM baton.conversations WHERE name LIKE $1', [
      `${conv}@%`,
    ]);
    expect(old).toHaveLength(1);
    expect((await archived(server.url, old[0]!.name)).map((r) => r.content)[0]).toBe('the old opening');
  }, 120_000);
});
