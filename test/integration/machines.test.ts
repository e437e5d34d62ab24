/**
 * Across machines over PostgreSQL (SPEC §10, issue 15), with a real server this file starts and stops.
 * A "machine" here is its own project folder, its own tmux server and its own daemon with its own
 * BATON_HOST; the two share only the database. Agents are recorders that answer through `baton post`.
 */
import { execa, type ResultPromise } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, Project, readRecorder, waitFor } from '../helpers/harness.js';
import { startPostgres, type Postgres } from '../helpers/postgres.js';
import pg from 'pg';

let server: Postgres;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.destroy();
});

let n = 0;
const machines: Machine[] = [];
afterEach(async () => {
  for (const m of machines.splice(0)) await m.stop();
});

interface Record_ {
  id: string;
  receiver: string;
  sender: string;
  content: string;
  reply_to: string | null;
  delivered_at: string | null;
  redelivered?: boolean;
}

class Machine extends Project {
  daemons: ResultPromise[] = [];
  constructor(
    readonly host: string,
    config: Record<string, unknown>,
  ) {
    super(config);
    this.env.BATON_HOST = host;
    machines.push(this);
  }

  /**
   * `baton daemon` on this machine; resolves once its host shows alive in the database. Returned inside an
   * object: the subprocess is a thenable, and returning it bare would wait for it to exit.
   */
  async daemon(): Promise<{ proc: ResultPromise }> {
    const p = execa('node', [CLI, 'daemon', '--config', this.configFile], { env: this.env, reject: false, cwd: this.dir, all: true });
    this.daemons.push(p);
    await waitFor(`daemon on ${this.host}`, async () => p.exitCode !== null || (await this.status())?.hosts?.[this.host]?.alive, 20_000);
    return { proc: p };
  }

  async status(): Promise<{ hosts: Record<string, { alive: boolean; pid: number | null }>; message_counter: number; bus: { kind: string } } | null> {
    const r = await this.cli(["status", "--json"]);
    return r.exitCode === 0 ? JSON.parse(r.stdout) : null;
  }

  override async stop(): Promise<void> {
    for (const d of this.daemons) if (d.exitCode === null) d.kill('SIGTERM');
    await Promise.all(this.daemons.map((d) => d.catch(() => {})));
    await super.stop();
  }
}

function twoMachines(extra: Record<string, unknown> = {}): { a: Machine; b: Machine; conversation: string } {
  const conversation = `machines-${process.pid}-${n++}`;
  const config = {
    message_dir: './messages',
    agents: { claude1: { kind: 'generic', command: 'x', host: 'alpha' }, claude2: { kind: 'generic', command: 'x', host: 'beta' } },
    directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    inbox: { max_bytes: 1048576, settle_ms: 300 },
    delivery: { enter_delay_ms: 20 },
    bus: { kind: 'postgres', url: server.url, conversation },
    ...extra,
  };
  return { a: new Machine('alpha', config), b: new Machine('beta', config), conversation };
}

async function archive(conversation: string): Promise<Record_[]> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    const r = await c.query<{ record: Record_ }>('SELECT record FROM baton.archive WHERE conversation = $1 AND NOT person ORDER BY counter', [conversation]);
    return r.rows.map((x) => x.record);
  } finally {
    await c.end();
  }
}

describe('the PostgreSQL bus across machines', () => {
  it('two machines hold one conversation: a file on one is typed into the pane on the other, and the replies go back', async () => {
    const { a, b, conversation } = twoMachines({ turns: { max_turns: 6 } });
    const logA = await a.recorder('claude1', { reply: true });
    const logB = await b.recorder('claude2', { reply: true });
    await a.daemon();
    await b.daemon();
    // claude1 writes a file, as its instructions say: alpha's daemon relays it, beta's types it.
    a.send('c1_to_c2', 'opening.json', { content: 'hello from alpha' });
    await waitFor('6 messages delivered', async () => (await archive(conversation)).filter((r) => r.delivered_at).length >= 6, 60_000);
    const records = await archive(conversation);
    expect(records.map((r) => r.id)).toEqual(['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004', 'msg_0005', 'msg_0006']);
    expect(records.map((r) => r.receiver)).toEqual(['claude2', 'claude1', 'claude2', 'claude1', 'claude2', 'claude1']);
    expect(records[0]).toMatchObject({ content: 'hello from alpha', reply_to: null, sender: 'claude1' });
    expect(records[1]).toMatchObject({ content: 'reply to msg_0001', reply_to: 'msg_0001' });
    // Each machine typed only into its own pane, each message once.
    const typedA = readRecorder(logA).pastes.join('\n');
    const typedB = readRecorder(logB).pastes.join('\n');
    for (const r of records) {
      const [mine, other] = r.receiver === 'claude1' ? [typedA, typedB] : [typedB, typedA];
      expect(mine.split(`[baton] ${r.id} from`).length - 1, r.id).toBe(1);
      expect(other).not.toContain(`[baton] ${r.id} from`);
    }
    // status from either machine: the bus, both hosts alive, the conversation finished by max_turns.
    const s = (await b.status())!;
    expect(s.bus.kind).toBe('postgres');
    expect(s.hosts.alpha?.alive).toBe(true);
    expect(s.hosts.beta?.alive).toBe(true);
    await waitFor('finished', async () => (await a.cli(['status', '--json'])).stdout.includes('"max_turns"'));
  }, 120_000);

  it('a second daemon claiming the same BATON_HOST is refused naming the holder (exit 3)', async () => {
    const { a } = twoMachines();
    await a.daemon();
    const other = new Machine('alpha', JSON.parse(require_('fs').readFileSync(a.configFile, 'utf8')));
    const r = await execa('node', [CLI, 'daemon', '--config', other.configFile], { env: other.env, reject: false, cwd: other.dir });
    expect(r.exitCode).toBe(3);
    expect(r.stderr + r.stdout).toMatch(/another baton daemon \(pid \d+ on .*\) holds conversation "machines-.*" on host "alpha"/);
  }, 60_000);
});

import { createRequire } from 'node:module';
const require_ = createRequire(import.meta.url);
