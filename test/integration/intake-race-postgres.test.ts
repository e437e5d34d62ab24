/**
 * intake-race.test.ts on the PostgreSQL bus: its relay reads the agents' folders through the same intake
 * (postgres/relay.ts), so a writer replacing a bad file under the same name must not get its valid message
 * rejected there either, and a file a killed daemon left on its way to rejected/ must come back at the next
 * start (the relay's, not the files bus's, start-up). One machine holds both agents.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { rejectedPairs, waitFor } from '../helpers/harness.js';
import { archived, machinesConfig, query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
let n = 0;
const conversation = () => `intake-race-${process.pid}-${n++}`;
const alone = (conv: string) =>
  machinesConfig(server.url, conv, {
    agents: {
      claude1: { kind: 'generic', command: 'x', host: 'alpha' },
      claude2: { kind: 'generic', command: 'x', host: 'alpha' },
    },
  });

/** Garbage under `name`, then `ms` later a valid message renamed over it. */
async function replace(dir: string, name: string, content: string, ms: number): Promise<void> {
  writeFileSync(join(dir, name), `garbage ${name}`);
  await sleep(ms);
  const tmp = join(dir, `.${name}.tmp`);
  writeFileSync(tmp, JSON.stringify({ content }));
  renameSync(tmp, join(dir, name));
}

describe('a bad file replaced under its name (PostgreSQL bus)', () => {
  it('garbage replaced by a valid message a few ms later, 200 times: every valid one delivered, none rejected', async () => {
    const conv = conversation();
    const a = machine('alpha', alone(conv));
    await a.recorder('claude1');
    await a.recorder('claude2');
    await a.daemon();
    const sent: string[] = [];
    const attacks: Array<Promise<void>> = [];
    for (let i = 0; i < 100; i++) {
      for (const dir of ['c1_to_c2', 'c2_to_c1']) {
        const name = `m${String(i).padStart(3, '0')}.json`;
        sent.push(`${dir} ${name}`);
        attacks.push(replace(a.path(dir), name, `${dir} ${name}`, 1 + ((i * 7) % 9)));
      }
      await sleep(2);
    }
    await Promise.all(attacks);
    // Done when nothing moves any more (a valid message rejected would leave the other folder's last ones
    // held for good, so waiting for 200 deliveries would only time out).
    const snapshot = async () =>
      JSON.stringify([
        (await archived(server.url, conv)).map((r) => r.delivered_at),
        a.ls('rejected'),
        a.ls('c1_to_c2'),
        a.ls('c2_to_c1'),
      ]);
    const seen: string[] = [];
    await waitFor(
      'nothing moves for 2 s',
      async () => {
        seen.push(await snapshot());
        const last = seen.at(-1)!;
        return seen.length >= 3 && seen.slice(-3).every((s) => s === last) && !last.includes('null');
      },
      60_000,
      1000,
    );
    const { stored, orphans } = rejectedPairs(a);
    const valid = stored.filter((s) => !readFileSync(a.path('rejected', s.name), 'utf8').startsWith('garbage '));
    expect(valid.map((s) => [s.name, s.note.reason])).toEqual([]);
    for (const s of stored) expect(s.note.reason).toMatch(/^invalid JSON: /);
    expect(orphans).toEqual([]);
    expect((await archived(server.url, conv)).map((r) => r.content).sort()).toEqual(sent.sort());
    const listed = await query(server.url, 'SELECT file FROM baton.rejected WHERE conversation = $1', [conv]);
    expect(listed).toHaveLength(stored.length);
  }, 90_000);

  it('killed with files taken aside on their way to rejected/: at the next start each is back in its folder and judged anew', async () => {
    const conv = conversation();
    const a = machine('alpha', alone(conv));
    await a.recorder('claude1');
    await a.recorder('claude2');
    Object.assign(a.env, { BATON_FAILPOINT: 'set_aside' });
    const { proc } = await a.daemon();
    writeFileSync(a.path('c1_to_c2', 'bad.json'), 'garbage');
    await waitFor('killed with the file taken aside', () => proc.exitCode !== null || proc.signalCode, 15_000);
    expect(proc.signalCode).toBe('SIGKILL');
    expect(a.ls('.rejecting', 'c1_to_c2')).toEqual(['bad.json']);
    writeFileSync(a.path('.rejecting', 'c1_to_c2', 'ok.json'), JSON.stringify({ content: 'caught aside' }));
    a.send('c1_to_c2', 'ok.json', { content: 'the newer one' });

    Object.assign(a.env, { BATON_FAILPOINT: '' });
    await a.daemon();
    await waitFor('delivered', async () => (await archived(server.url, conv))[0]?.delivered_at, 20_000);
    await waitFor('rejected', () => rejectedPairs(a).stored.length === 1);
    expect(a.ls('.rejecting', 'c1_to_c2')).toEqual([]);
    const { stored } = rejectedPairs(a);
    expect(stored.map((s) => [s.name, s.note.file])).toEqual([['bad.json', 'bad.json']]);
    expect(stored[0]!.note.reason).toMatch(/^invalid JSON: Unexpected token 'g'/);
    const records = await archived(server.url, conv);
    expect(records.map((r) => r.content)).toEqual(['caught aside']);
    // The newer one: relayed into the database, waiting there for claude1's next turn.
    const waiting = await query<{ body: string }>(
      server.url,
      'SELECT body FROM baton.waiting WHERE conversation = $1',
      [conv],
    );
    expect(waiting.map((w) => JSON.parse(w.body).content)).toEqual(['the newer one']);
  }, 90_000);
});
