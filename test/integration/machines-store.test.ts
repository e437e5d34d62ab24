/**
 * The store changing under a running daemon (docs/protocol.md §10), against a real PostgreSQL: a schema
 * another baton made newer, or a conversation row deleted by hand. The daemon used to go on writing with
 * statements that may no longer fit, or wait in silence; now it writes nothing more and stops (exit 1),
 * saying why.
 */
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/bus/postgres/migrate.js';
import { waitFor } from '../helpers/harness.js';
import { machinesConfig, query, useMachines } from '../helpers/machines.js';
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

  it('its conversation set aside and made anew by another machine: the daemon stops and says so', async () => {
    const conv = conversation();
    const config = machinesConfig(server.url, conv);
    const [a, b] = [machine('alpha', config), machine('beta', config)];
    const { proc } = await a.daemon();
    await waitFor('recovered', () => a.output.includes('watching'));
    // What `baton up --fresh` does on beta: the old rows renamed, a new conversation of the same name.
    await query(server.url, `UPDATE baton.conversations SET name = name || '@old' WHERE name = $1`, [conv]);
    // A post for alpha's agent from beta goes straight into the database (an agent's own goes to its folder).
    expect((await b.cli(['post', '--as', 'claude1', 'a new conversation'])).exitCode).toBe(0);
    await waitFor('the daemon stopped', () => proc.exitCode !== null, 30_000);
    expect(proc.exitCode).toBe(1);
    expect(a.output).toContain(`conversation "${conv}" was made anew in the database`);
  }, 60_000);
});
