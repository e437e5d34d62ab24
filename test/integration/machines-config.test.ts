/**
 * One conversation, one config (docs/protocol.md §10), against a real PostgreSQL: conversation names never
 * collide by accident (folders 日本 and 中国 were both conversation `__`, each project reading the other's
 * messages), and a machine whose config differs from the one the conversation's running machines share is
 * refused (exit 2) with one line naming the keys and the machine that recorded the other — alpha's copy
 * lacking `host` for an agent used to type that agent's messages into an unrelated local session.
 * Changing it on purpose: stop every daemon, and the first to start again records its own.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI, Project, waitFor } from '../helpers/harness.js';
import { machinesConfig, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
let n = 0;
const conversation = () => `config-${process.pid}-${n++}`;

describe('one conversation, one config (PostgreSQL bus)', () => {
  it('folders 日本 and 中国 (and review 42, review_42) are four conversations: none reads another', async () => {
    const p = new Project();
    try {
      const folders = ['日本', '中国', 'review 42', 'review_42'];
      const run = (folder: string, args: string[]) =>
        execa('node', [CLI, ...args, '--config', join(p.dir, folder, 'config.json')], {
          env: p.env,
          reject: false,
          cwd: join(p.dir, folder),
        });
      for (const f of folders) {
        mkdirSync(join(p.dir, f));
        writeFileSync(
          join(p.dir, f, 'config.json'),
          JSON.stringify({
            agents: { claude1: { kind: 'generic', command: 'x' }, claude2: { kind: 'generic', command: 'x' } },
            bus: { kind: 'postgres', url: server.url },
          }),
        );
        const posted = await run(f, ['post', '--as', 'claude1', `private to ${f}`]);
        expect(posted.exitCode, posted.stderr).toBe(0);
      }
      for (const f of folders) {
        const status = JSON.parse((await run(f, ['status', '--json'])).stdout) as { bus: { conversation: string } };
        expect(status.bus.conversation).toBe(
          { 日本: '日本', 中国: '中国', 'review 42': 'review%2042', review_42: 'review_42' }[f],
        );
        // Each sees its own message waiting, and only its own.
        expect(JSON.parse((await run(f, ['status', '--json'])).stdout).held).toEqual({
          claude1_to_claude2: 1,
          claude2_to_claude1: 0,
        });
      }
    } finally {
      await p.stop();
    }
  }, 60_000);

  it('a machine joining with a config that differs is refused naming the keys and the machine; changed on purpose once every daemon stopped', async () => {
    const conv = conversation();
    const config = machinesConfig(server.url, conv);
    // beta's copy lacks alpha's host for claude1 (so it would think claude1 runs on beta), and another policy.
    const agents = config.agents as Record<string, Record<string, unknown>>;
    // (Commands differ too, as they may: what only the machine itself runs is not compared.)
    const other = {
      ...config,
      agents: { claude1: { kind: 'generic', command: 'cat' }, claude2: { ...agents.claude2, command: 'cat' } },
      turns: { max_turns: 9 },
    };
    const [a, b] = [machine('alpha', config), machine('beta', other)];
    const alpha = await a.daemon();
    const refused = await b.cli(['daemon']);
    expect(refused.exitCode, refused.stderr).toBe(2);
    const line = refused.stderr.trim().split('\n').at(-1)!;
    expect(line).toMatch(
      new RegExp(
        `this machine's config differs from the one conversation "${conv}" runs with, recorded by host alpha at \\S+ ` +
          '\\(daemons running on alpha\\): agents\\.claude1\\.host, turns\\.max_turns differ\\.',
      ),
    );
    expect(line).toContain("stop every machine's daemon and start them with the new one");
    // `baton up` there is refused the same way, before it starts anything.
    const up = await b.cli(['up']);
    expect(up.exitCode, up.stderr).toBe(2);
    expect(up.stderr).toContain('agents.claude1.host, turns.max_turns differ');
    expect((await b.tmux(['list-sessions'])).stdout).not.toContain('claude2');
    // Nor written anything: it once wrote each agent's instructions file (agents/*/AGENTS.md) first.
    expect(existsSync(join(b.dir, 'agents')), 'agents/ written by a refused up').toBe(false);

    // On purpose: alpha's daemon stops; beta's starts first with its config and records it; alpha's, with the
    // old one, is now the one refused, naming beta.
    alpha.proc.kill('SIGTERM');
    await waitFor('alpha stopped', () => alpha.proc.exitCode !== null, 15_000);
    const beta = await b.daemon();
    expect(b.output).toContain(`recorded this machine's config for conversation "${conv}"`);
    const back = await a.cli(['daemon']);
    expect(back.exitCode).toBe(2);
    expect(back.stderr).toMatch(
      /recorded by host beta at \S+ \(daemons running on beta\): agents\.claude1\.host, turns\.max_turns differ/,
    );
    expect(beta.proc.exitCode).toBeNull();
  }, 90_000);
});
