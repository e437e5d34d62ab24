/**
 * "Machines" for the PostgreSQL bus tests: each is its own project folder, its own tmux
 * server and its own `baton daemon` with its own BATON_HOST; they share only the database. Recorders
 * stand in for agents and answer through `baton post`. `invariants()` checks docs/protocol.md §10's promises from
 * the database and the recorders' logs.
 */
import { execa, type ResultPromise } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { afterEach, expect } from 'vitest';
import { listClaimed } from '../../src/bus/postgres/relay-claims.js';
import { CLI, Project, readRecorder, waitFor } from './harness.js';

export interface Rec {
  id: string;
  receiver: string;
  sender: string;
  content: string;
  reply_to: string | null;
  delivered_at: string | null;
  redelivered?: boolean;
}

export class Machine extends Project {
  readonly procs: ResultPromise[] = [];
  /** Everything its daemons printed, in order (for a failing test to show). */
  output = '';

  constructor(
    readonly host: string,
    config: Record<string, unknown>,
    extraEnv: Record<string, string> = {},
  ) {
    super(config);
    Object.assign(this.env, { BATON_HOST: host, ...extraEnv });
  }

  /**
   * `baton daemon` on this machine (`wrap`: a command to run it under, e.g. ip netns exec; `configs`: the
   * conversations it serves, by default this machine's one); resolves once its host shows alive in the
   * database for this machine's config. Returned inside an object: the subprocess is a thenable.
   */
  async daemon(
    wrap: string[] = [],
    configs: string[] = ['--config', this.configFile],
  ): Promise<{ proc: ResultPromise }> {
    const argv = [...wrap, 'node', CLI, 'daemon', ...configs];
    const p = execa(argv[0]!, argv.slice(1), { env: this.env, reject: false, cwd: this.dir, all: true });
    this.procs.push(p);
    p.all?.on('data', (d: Buffer) => (this.output = (this.output + d.toString()).slice(-20_000)));
    await waitFor(
      `daemon on ${this.host}`,
      async () => p.exitCode !== null || (await this.status())?.hosts?.[this.host]?.pid === p.pid,
      30_000,
    );
    if (p.exitCode !== null) throw new Error(`the daemon on ${this.host} did not start: ${String((await p).all)}`);
    // The host shows alive before its conversations have made their folders: a test that writes a message
    // right away needs the folders of the directions this machine sends on.
    if (configs[1] === this.configFile) {
      const senders = this.localDirections();
      await waitFor(
        `folders on ${this.host}`,
        () => p.exitCode !== null || senders.every((d) => existsSync(this.path(d))),
        30_000,
      );
    }
    return { proc: p };
  }

  /** The directions whose sender runs on this machine (its daemon makes their folders). */
  private localDirections(): string[] {
    const c = JSON.parse(readFileSync(this.configFile, 'utf8')) as {
      agents: Record<string, { host?: string }>;
      directions?: Record<string, [string, string]>;
    };
    return Object.entries(c.directions ?? {})
      .filter(([, [from]]) => c.agents[from]?.host === this.host)
      .map(([d]) => d);
  }

  async status(): Promise<{
    hosts: Record<string, { alive: boolean; pid: number | null; last_heartbeat: string | null; since: string | null }>;
    message_counter: number;
    relaying: number;
    bus: { kind: string };
    finished: unknown;
  } | null> {
    const r = await this.cli(['status', '--json']);
    return r.exitCode === 0 ? JSON.parse(r.stdout) : null;
  }

  override async stop(): Promise<void> {
    for (const d of this.procs) if (d.exitCode === null) d.kill('SIGKILL');
    await Promise.all(this.procs.map((d) => d.catch(() => {})));
    await super.stop();
  }
}

/**
 * The messages a machine still holds in its direction folders, written and not stored yet: the files
 * there, and the claimed ones in `.relaying/` (a long name's in a folder of its own) whose relay key the
 * database does not have (one it has is stored, and only waits there for its insert to reach the server's
 * disk).
 */
function queued(m: Machine, conversation: string, stored: Set<string>): string[] {
  const { directions } = JSON.parse(readFileSync(m.configFile, 'utf8')) as { directions: Record<string, unknown> };
  const content = (f: string) => (JSON.parse(readFileSync(f, 'utf8')) as { content: string }).content;
  return Object.keys(directions).flatMap((d) => [
    ...m
      .ls(d)
      .filter((n) => !n.startsWith('.'))
      .map((n) => content(m.path(d, n))),
    ...listClaimed(m.path(d, '.relaying'))
      .filter((n) => !stored.has(`${conversation}/${m.host}/${d}/${n}`))
      .map((n) => content(m.path(d, '.relaying', n))),
  ]);
}

/** Machines for a test file: each made by the returned function is stopped after its test. */
export function useMachines(): (host: string, config: Record<string, unknown>) => Machine {
  const made: Machine[] = [];
  afterEach(async () => {
    for (const m of made.splice(0)) await m.stop();
  });
  return (host, config) => {
    const m = new Machine(host, config);
    made.push(m);
    return m;
  };
}

export function machinesConfig(
  url: string,
  conversation: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    message_dir: './messages',
    agents: {
      claude1: { kind: 'generic', command: 'x', host: 'alpha' },
      claude2: { kind: 'generic', command: 'x', host: 'beta' },
    },
    directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    inbox: { max_bytes: 1048576, settle_ms: 300 },
    delivery: { enter_delay_ms: 0 },
    bus: { kind: 'postgres', url, conversation },
    ...extra,
  };
}

export async function query<R extends Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** What a stalled test needs to see: the conversation's rows, each machine's daemon output and recorder log. */
export async function diagnose(
  url: string,
  conversation: string,
  machines: Machine[],
  logs: Record<string, string>,
): Promise<string> {
  const rows = async (sql: string) =>
    JSON.stringify(await query(url, sql, [conversation]).catch((e: Error) => e.message));
  return [
    `state: ${await rows('SELECT state FROM baton.conversations WHERE name = $1')}`,
    `last archived: ${await rows("SELECT counter, record->>'sender' AS sender, delivered FROM baton.archive WHERE conversation = $1 ORDER BY counter DESC LIMIT 3")}`,
    `waiting: ${await rows('SELECT seq, direction, status FROM baton.waiting WHERE conversation = $1')}`,
    `requests: ${await rows('SELECT name, host, body FROM baton.requests WHERE conversation = $1')}`,
    `leases: ${await rows('SELECT * FROM baton.leases WHERE conversation = $1')}`,
    `rejected: ${await rows('SELECT * FROM baton.rejected WHERE conversation = $1')}`,
    `relayed: ${await rows('SELECT * FROM baton.relayed WHERE conversation = $1')}`,
    `events: ${await rows('SELECT body FROM baton.events WHERE conversation = $1 ORDER BY seq DESC LIMIT 20')}`,
    ...machines.map((m) => `--- daemon output on ${m.host}:\n${m.output.slice(-4000)}`),
    ...Object.entries(logs).map(
      ([a, log]) =>
        `--- ${a} read:\n${readRecorder(log)
          .typed.map((t) => t.split('\n')[0])
          .slice(-6)
          .join('\n')}`,
    ),
  ].join('\n');
}

export const archived = async (url: string, conversation: string): Promise<Rec[]> =>
  (
    await query<{ record: Rec }>(
      url,
      'SELECT record FROM baton.archive WHERE conversation = $1 AND NOT person ORDER BY counter',
      [conversation],
    )
  ).map((r) => r.record);

export const countArchived = async (url: string, conversation: string): Promise<number> =>
  (
    await query<{ n: number }>(
      url,
      'SELECT count(*)::int AS n FROM baton.archive WHERE conversation = $1 AND NOT person',
      [conversation],
    )
  )[0]!.n;

/**
 * docs/protocol.md §10's promises once everything is back and idle: every message in exactly one place (archived,
 * waiting or rejected — nothing is rejected here), IDs 1..N once, the reply_to chain, senders alternate,
 * every delivered message typed into its receiver's pane at least once and a second copy only flagged,
 * nothing typed into the wrong pane. `logs`: each agent's recorder log; `opening`: the first content.
 */
export async function invariants(
  url: string,
  conversation: string,
  logs: Record<string, string>,
  o: { opening: string; machines: Machine[] },
): Promise<{ n: number; redelivered: number; waiting: number }> {
  const { opening } = o;
  const archive = await archived(url, conversation);
  const n = archive.length;
  expect(archive.map((r) => r.id)).toEqual(
    Array.from({ length: n }, (_, i) => `msg_${String(i + 1).padStart(4, '0')}`),
  );
  archive.forEach((r, i) => {
    expect(r.reply_to).toBe(i ? archive[i - 1]!.id : null);
    expect(r.sender).toBe(i % 2 ? 'claude2' : 'claude1');
    expect(r.delivered_at, `${r.id} delivered`).toBeTruthy();
  });
  const state = (
    await query<{ state: { message_counter: number; last_message_id: string } }>(
      url,
      'SELECT state FROM baton.conversations WHERE name = $1',
      [conversation],
    )
  )[0]!.state;
  expect(state).toMatchObject({ message_counter: n, last_message_id: archive[n - 1]!.id });
  expect(await query(url, 'SELECT 1 FROM baton.rejected WHERE conversation = $1', [conversation])).toEqual([]);

  // Every delivered message reaches its pane's reader, submitted, a moment after its stamp: wait for that
  // first, or what the agents wrote (below) grows between the wait and the check (seen in CI: the last
  // message was read, and answered, just after the replies had been counted).
  const submittedAll = () =>
    archive.every((r) => readRecorder(logs[r.receiver]!).pastes.some((t) => t.startsWith(`[baton] ${r.id} `)));
  await waitFor('every delivered message submitted in its pane', submittedAll, 60_000).catch(() => {});

  // What the agents wrote (the opening, one reply per submitted paste they read) is each in one place: the
  // archive, the database's waiting rows, or — an agent's `baton post` is a file its machine's daemon relays,
  // and the daemons are stopped by now — still in its folder on its machine.
  const written = () =>
    [
      opening,
      ...Object.values(logs).flatMap((log) =>
        readRecorder(log).pastes.flatMap((t) =>
          /^\[baton\] (msg_\d+) from /.exec(t) ? [`reply to ${/msg_\d+/.exec(t)![0]}`] : [],
        ),
      ),
    ].sort();
  const found = async () => {
    const keys = new Set(
      (
        await query<{ relay_key: string }>(url, 'SELECT relay_key FROM baton.relayed WHERE conversation = $1', [
          conversation,
        ])
      ).map((r) => r.relay_key),
    );
    const waiting = await query<{ body: string }>(url, 'SELECT body FROM baton.waiting WHERE conversation = $1', [
      conversation,
    ]);
    return [
      ...archive.map((r) => r.content),
      ...waiting.map((w) => (JSON.parse(w.body) as { content: string }).content),
      ...o.machines.flatMap((m) => queued(m, conversation, keys)),
    ].sort();
  };
  const allPosted = async () => JSON.stringify(await found()) === JSON.stringify(written());
  await waitFor('every reply posted', allPosted, 60_000, 50).catch(() => {});
  expect(await found()).toEqual(written());

  let redelivered = 0;
  for (const [agent, log] of Object.entries(logs)) {
    const headers = readRecorder(log).typed.map((t) => t.split('\n')[0]!);
    for (const r of archive.filter((x) => x.receiver === agent)) {
      const got = headers.filter((h) => h.startsWith(`[baton] ${r.id} `));
      expect(got.length, `${r.id} typed into ${agent}; it read ${JSON.stringify(headers)}`).toBeGreaterThanOrEqual(1);
      if (got.length > 1) {
        expect(r.redelivered, `${r.id} typed ${got.length}× must be flagged`).toBe(true);
        expect(got.slice(1).every((h) => h.endsWith('(redelivered)'))).toBe(true);
      }
      if (r.redelivered) redelivered++;
    }
    // Nothing but this pane's messages reached it (a notice — "the conversation has finished" — is no message).
    expect(
      headers
        .filter((h) => /^\[baton\] msg_\d+ /.test(h))
        .every((h) => archive.some((r) => r.receiver === agent && h.startsWith(`[baton] ${r.id} from ${r.sender}`))),
      `${agent} read ${JSON.stringify(headers)}`,
    ).toBe(true);
  }
  const waiting = (await query(url, 'SELECT 1 FROM baton.waiting WHERE conversation = $1', [conversation])).length;
  return { n, redelivered, waiting };
}
