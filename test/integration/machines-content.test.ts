/**
 * Content across machines (docs/protocol.md §3, §10): what the files bus accepts, the PostgreSQL bus
 * stores and delivers, byte for byte in the archive — a NUL or a lone surrogate in a file used to stop the
 * conversation for good (the receiving daemon retried its turn step once a second for ever). And one
 * message the server refuses for its own data (a data exception, raised here by a trigger on the real
 * server) is rejected with the reason, on its way in (the relay, a post) or in its turn step, and the
 * conversation goes on.
 */
import { describe, expect, it } from 'vitest';
import { openBus } from '../../src/bus/open.js';
import { parseConfig } from '../../src/config/config.js';
import { readRecorder, waitFor } from '../helpers/harness.js';
import { archived, machinesConfig, query, type Machine, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
let n = 0;
const conversation = () => `content-${process.pid}-${n++}`;

/** The conversation's records as the bus reads them (decoded), by ID. */
async function records(m: Machine, raw: Record<string, unknown>) {
  const bus = openBus(parseConfig(raw, m.configFile, m.dir, { BATON_HOST: m.host }));
  return new Map((await bus.records()).map((r) => [r.id, r]));
}

const delivered = (conv: string, count: number) => async () =>
  (await archived(server.url, conv)).filter((r) => r.delivered_at).length >= count;

describe('content across machines (PostgreSQL bus)', () => {
  it('a NUL or a lone surrogate, in a file or piped into baton post -, is delivered and archived byte for byte', async () => {
    const conv = conversation();
    const config = machinesConfig(server.url, conv);
    const [a, b] = [machine('alpha', config), machine('beta', config)];
    const logA = await a.recorder('claude1');
    const logB = await b.recorder('claude2');
    await a.daemon();
    await b.daemon();
    const odd = 'x\u0000y \ud800 lone \udfff, 🐈 \ufdd0';
    a.send('c1_to_c2', 'odd.json', { content: odd, data: { 'k\u0000': '\ud83d' } });
    await waitFor('msg_0001 delivered', delivered(conv, 1), 30_000);
    const post = await b.cli(['post', '--as', 'claude2', '-'], { input: 'piped\u0000NUL' });
    expect(post.exitCode, post.stderr).toBe(0);
    await waitFor('msg_0002 delivered', delivered(conv, 2), 30_000);
    a.send('c1_to_c2', 'after.json', { content: 'and the conversation goes on' });
    await waitFor('msg_0003 delivered', delivered(conv, 3), 30_000);

    // Stored byte for byte, as a file or a post, is the contract's (content.contract.ts); what `baton post -`
    // read from its standard input is this test's.
    expect((await records(a, config)).get('msg_0002')?.content).toBe('piped\u0000NUL');
    // Typed sanitized, as on the files bus: the NUL is not pressed into the pane.
    await waitFor('typed', () => readRecorder(logA).pastes.some((t) => t.includes('pipedNUL')), 15_000);
    expect(
      readRecorder(logB).pastes.some((t) => t.startsWith('[baton] msg_0001 from claude1') && t.includes('xy')),
    ).toBe(true);
  }, 120_000);

  it('a message the server refuses for its own data is rejected with the reason, and the conversation goes on', async () => {
    const conv = conversation();
    const config = machinesConfig(server.url, conv);
    const [a, b] = [machine('alpha', config), machine('beta', config)];
    await a.recorder('claude1');
    await b.recorder('claude2');
    await a.daemon();
    await b.daemon();
    // A data exception (22023) for "poison" in a record being archived (the receiver's turn step) and for
    // "venom" in a message being stored (the sender's relay, a post).
    await query(
      server.url,
      `CREATE OR REPLACE FUNCTION public.refuse_data() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF to_jsonb(NEW)->'record'->>'content' LIKE 'poison%' OR to_jsonb(NEW)->>'body' LIKE '%venom%' THEN
             RAISE EXCEPTION 'the test refuses this value' USING ERRCODE = '22023';
           END IF;
           RETURN NEW;
         END $$;
       CREATE OR REPLACE TRIGGER refuse_data BEFORE INSERT ON baton.archive FOR EACH ROW EXECUTE FUNCTION public.refuse_data();
       CREATE OR REPLACE TRIGGER refuse_data BEFORE INSERT ON baton.waiting FOR EACH ROW EXECUTE FUNCTION public.refuse_data();`,
    );
    try {
      const rejected = () =>
        query<{ reason: string; direction: string }>(
          server.url,
          'SELECT reason, direction FROM baton.rejected WHERE conversation = $1 ORDER BY seq',
          [conv],
        );
      const why = /^the database cannot store it: the test refuses this value \(SQLSTATE 22023\)$/;
      // In its turn step: rejected, and the next message is delivered.
      a.send('c1_to_c2', 'a-poison.json', { content: 'poison: archived never' });
      await waitFor('rejected in its turn step', async () => (await rejected()).length === 1, 30_000);
      a.send('c1_to_c2', 'b-after.json', { content: 'after the poison' });
      await waitFor('msg_0001 delivered', delivered(conv, 1), 30_000);
      // On its way in through the relay: rejected on its machine, with its note, listed in the database.
      b.send('c2_to_c1', 'venom.json', { content: 'venom in a file' });
      await waitFor('rejected by the relay', async () => (await rejected()).length === 2, 30_000);
      expect(b.ls('rejected')).toEqual(['venom.json', 'venom.json.error.json']);
      expect(b.ls('c2_to_c1')).toEqual(['.relaying']);
      // A post stored directly (from alpha, for beta's agent: an agent's own post goes through its folder, as
      // above): refused with the reason (exit 2), listed; nothing stored.
      const post = await a.cli(['post', '--as', 'claude2', 'venom in a post']);
      expect(post.exitCode).toBe(2);
      expect(post.stderr).toMatch(/not posted: the database cannot store it: the test refuses this value/);
      const all = await rejected();
      expect(all).toHaveLength(3);
      for (const r of all) expect(r.reason).toMatch(why);
      // The conversation goes on.
      b.send('c2_to_c1', 'fine.json', { content: 'and on' });
      await waitFor('msg_0002 delivered', delivered(conv, 2), 30_000);
      expect((await archived(server.url, conv)).map((r) => r.content)).toEqual(['after the poison', 'and on']);
      const events = await query<{ body: { event: string; reason?: string } }>(
        server.url,
        "SELECT body FROM baton.events WHERE conversation = $1 AND body->>'event' = 'rejected'",
        [conv],
      );
      expect(events.map((e) => e.body.reason)).toEqual(all.map((r) => r.reason));
    } finally {
      await query(server.url, 'DROP TRIGGER refuse_data ON baton.archive; DROP TRIGGER refuse_data ON baton.waiting');
    }
  }, 120_000);
});
