/**
 * `baton up --demo` in every project `baton init` makes: whatever kind the config names, the demo agents
 * stand in for it and the demo runs to its end — with no alarm a real agent of that kind would raise (a
 * receipt its hook never reported: the demo agent has no hooks). A `--kind shell` demo once stalled after
 * msg_0001 (its agent got a shell's inert comment line and never read the message), and a `--kind claude`
 * demo raised `delivery_unconfirmed` for every message.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/config/config.js';
import { CLI, Project, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

describe('the demo in every kind of project', () => {
  it.each(AGENT_KINDS.map((k) => [k]))(
    'init --kind %s, up --demo: the demo runs to its end, with no receipt or hook alarm',
    async (kind) => {
      p = new Project();
      const proj = join(p.dir, 'proj');
      const env = { ...p.env, BATON_DEMO_DELAY_MS: '100', BATON_DEMO_TURNS: '4', BATON_RECEIPT_BOUND_MS: '500' };
      const baton = (args: string[], cwd = proj) => execa('node', [CLI, ...args], { cwd, env, reject: false });
      const made = await baton(['init', proj, '--kind', kind], p.dir);
      expect(made.exitCode, made.stderr).toBe(0);
      const up = await baton(['up', '--demo']);
      expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
      const state = join(proj, 'messages', 'state.json');
      const finished = () =>
        existsSync(state) && (JSON.parse(readFileSync(state, 'utf8')) as { finished?: unknown }).finished;
      const events = () =>
        existsSync(join(proj, 'messages', 'events.jsonl'))
          ? readFileSync(join(proj, 'messages', 'events.jsonl'), 'utf8')
          : '';
      await waitFor(`the ${kind} demo to finish`, finished, 40_000).catch((e: Error) => {
        throw new Error(`${e.message}\n${events()}`);
      });
      expect(existsSync(join(proj, 'messages', 'archive', 'msg_0002.json'))).toBe(true);
      // Longer than the receipt bound (500 ms here): an alarm would have come by now.
      await new Promise((r) => setTimeout(r, 1500));
      const names = events()
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { event: string }).event);
      expect(names.filter((n) => ['delivery_unconfirmed', 'screen_unknown', 'delivery_failed'].includes(n))).toEqual(
        [],
      );
      expect((await baton(['down'])).exitCode).toBe(0);
    },
    60_000,
  );
});
