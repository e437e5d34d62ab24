/**
 * `baton post` on the PostgreSQL bus, with a real server this file starts and stops: a post is stored
 * once though the server dies right after its commit; an agent's pane gets no database URL or password,
 * and its posts still cross machines (through its own machine's daemon); a database that is away does not
 * reach the agent — the post is queued on its machine and delivered once the database is back.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cutProxy } from '../helpers/cut-proxy.js';
import { RECORDER, readRecorder, waitFor } from '../helpers/harness.js';
import { archived, machinesConfig, query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
let n = 0;
const conversation = () => `posting-${process.pid}-${n++}`;

/** How many stored copies of `content` the conversation has (waiting or archived). */
async function copies(conv: string, content: string): Promise<number> {
  const waiting = await query<{ n: number }>(
    server.url,
    `SELECT count(*)::int AS n FROM baton.waiting WHERE conversation = $1 AND body::jsonb->>'content' = $2`,
    [conv, content],
  );
  const kept = await query<{ n: number }>(
    server.url,
    `SELECT count(*)::int AS n FROM baton.archive WHERE conversation = $1 AND record->>'content' = $2`,
    [conv, content],
  );
  return waiting[0]!.n + kept[0]!.n;
}

describe('baton post on the PostgreSQL bus', () => {
  it('the server killed right after a post commits: the retry is recognised, the message stored once', async () => {
    const conv = conversation();
    const a = machine('alpha', machinesConfig(server.url, conv));
    const marker = `stored once ${process.pid}`;
    // From a person's shell on alpha, for claude2 (beta's agent): straight into the database. The answer to
    // its insert never comes: the connection is cut once the server has committed, and the server is stopped
    // (immediate) and started again.
    const proxy = await cutProxy({
      port: server.port,
      marker,
      onCut: async () => {
        await server.stop('immediate');
        await server.start();
      },
    });
    try {
      const post = () => a.cli(['post', '--as', 'claude2', marker], { env: { BATON_BUS_URL: proxy.url } });
      let r = await post();
      // What an agent, or a script, does with a post that failed: try again, once the server is back.
      if (r.exitCode !== 0) {
        await waitFor(
          'the server back',
          () =>
            query(server.url, 'SELECT 1').then(
              () => true,
              () => false,
            ),
          30_000,
        );
        r = await post();
      }
      expect(proxy.cuts()).toBe(1);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(await copies(conv, marker)).toBe(1);
    } finally {
      await proxy.close();
    }
  }, 90_000);
});

describe("an agent's pane on the PostgreSQL bus", () => {
  it("agents' panes get no BATON_BUS_URL or PGPASSWORD; an agent's post still crosses machines", async () => {
    const conv = conversation();
    const config = machinesConfig('', conv, { turns: { max_turns: 4 } });
    delete (config.bus as { url?: string }).url; // the URL (and the password) only in the environment
    const a = machine('alpha', config);
    const b = machine('beta', config);
    const logA = `${a.dir}/claude1.log`;
    const cfg = JSON.parse(readFileSync(a.configFile, 'utf8')) as { agents: Record<string, { command: string }> };
    cfg.agents.claude1!.command = `node ${JSON.stringify(RECORDER)} ${JSON.stringify(logA)} --reply`;
    a.writeConfig(cfg);
    const secrets = { BATON_BUS_URL: server.url, PGPASSWORD: 'not-needed-under-trust' };
    Object.assign(b.env, secrets);
    const logB = await b.recorder('claude2', { reply: true });
    await b.daemon();
    const up = await a.cli(['up'], { env: secrets });
    expect(up.exitCode, up.stderr + up.stdout).toBe(0);
    const session = (await a.tmux(['list-sessions', '-F', '#{session_name}'])).stdout
      .split('\n')
      .find((s) => s.endsWith('claude1'))!;
    // The agent's pane: neither in its session's environment nor in its process's.
    const shown = (await a.tmux(['show-environment', '-t', session])).stdout;
    expect(shown).not.toMatch(/BATON_BUS_URL|PGPASSWORD/);
    const pid = (await a.tmux(['display-message', '-p', '-t', `=${session}:`, '#{pane_pid}'])).stdout.trim();
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(environ.filter((e) => /^(BATON_BUS_URL|PGPASSWORD)=/.test(e))).toEqual([]);
    expect(environ).toContain('BATON_AGENT=claude1');
    // The daemon's has them (the machine's daemon, started by this `up`): it is the one that talks to the database.
    expect((await a.tmux(['show-environment', '-t', 'baton-daemon'])).stdout).toContain('BATON_BUS_URL=');
    // claude1 opens; beta types it to claude2, whose reply comes back to claude1's pane, which answers with
    // `baton post` — no database in its environment: the file goes through alpha's daemon.
    a.send('c1_to_c2', 'opening.json', { content: 'hello from alpha' });
    await waitFor(
      'four messages delivered',
      async () => (await archived(server.url, conv)).filter((r) => r.delivered_at).length >= 4,
      60_000,
    );
    const records = await archived(server.url, conv);
    expect(records.map((r) => `${r.sender}: ${r.content}`)).toEqual([
      'claude1: hello from alpha',
      'claude2: reply to msg_0001',
      'claude1: reply to msg_0002',
      'claude2: reply to msg_0003',
    ]);
    expect(readRecorder(logA).pastes.some((t) => t.startsWith('[baton] msg_0002 from claude2'))).toBe(true);
    expect(readRecorder(logB).pastes.some((t) => t.startsWith('[baton] msg_0003 from claude1'))).toBe(true);
  }, 120_000);
});

describe('a database blink', () => {
  it('the database away: an agent’s post is queued on its machine (exit 0) and delivered once it is back', async () => {
    const conv = conversation();
    const config = machinesConfig(server.url, conv);
    const a = machine('alpha', config);
    const b = machine('beta', config);
    await a.recorder('claude1');
    const logB = await b.recorder('claude2', { reply: true }); // its reply gives claude1 the turn again
    await a.daemon();
    await b.daemon();
    await server.stop('immediate');
    try {
      const posted = await a.cli(['post', '--as', 'claude1', 'sent while the database was away']);
      expect(posted.exitCode, posted.stderr).toBe(0);
      expect(posted.stderr).toContain('queued');
      // A script waiting for it, from a shell that reaches the database: it waits through the outage.
      const waiting = a.cli(['post', '--as', 'claude1', '--wait', '--timeout', '60', 'and this one waited']);
      // Queued (as the first one was): from here it follows the post through the outage, not before.
      const has = (sub: string, f: string) => {
        try {
          return readFileSync(a.path('c1_to_c2', sub, f), 'utf8').includes('and this one waited');
        } catch {
          return false; // a folder, or moved on meanwhile
        }
      };
      await waitFor('the waiting post queued', () =>
        ['', '.relaying'].some((sub) => a.ls('c1_to_c2', sub).some((f) => has(sub, f))),
      );
      expect(waiting.exitCode).toBeNull(); // still waiting
      await server.start();
      const waited = await waiting;
      expect(waited.exitCode, waited.stderr).toBe(0);
    } finally {
      await server.start().catch(() => {});
    }
    await waitFor(
      'delivered after the database came back',
      () => readRecorder(logB).pastes.some((t) => t.includes('sent while the database was away')),
      60_000,
    );
    expect((await archived(server.url, conv))[0]).toMatchObject({
      id: 'msg_0001',
      content: 'sent while the database was away',
    });
  }, 120_000);
});
