/**
 * How soon after a paste each real client takes an Enter as a submit, never as a newline — the measurement
 * behind each kind's `enterDelayMs` (src/terminal/kinds.ts; the table is in docs/performance.md). Slow (minutes
 * per client), so it runs only when asked:
 *
 *     BATON_ENTER_DELAY=1 npx vitest run test/e2e/enter-delay.test.ts
 *     BATON_ENTER_DELAY=claude,gemini BATON_ENTER_TRIALS=40 BATON_CLAUDE_VERSION=2.1.332 npx vitest run …
 *     (BATON_ENTER_DELAYS=0,10,… and BATON_ENTER_SHOWN_DELAYS=0,25,… choose the delays; `none`: no such trials)
 *
 * Each client runs alone in a pane of a private tmux server against its API mock, without a daemon. A trial
 * pastes a message shaped as baton types one (a header, ten lines, the hint) the way the daemon does —
 * baton's own TmuxTypist over a control-mode client: a bracketed `paste-buffer -p -r` — and presses Enter
 * `d` ms later, timed two ways: from the paste (`after paste`) and from the moment the client's screen first
 * shows the paste in its input box (`after shown`, baton's gate: tmux-typist.ts landed()). The mock is the
 * judge: a submit is a user turn carrying the whole text exactly; anything else (the Enter became a newline
 * and the text still waits in the box, or a turn with other text) is a miss, and the box is then cleared
 * for the next trial by one more Enter (what that submits is set aside).
 *
 * What it asserts is what the daemon relies on: at each kind's default (`shown` first, then the rest of
 * the kind's delay from the paste), every trial is a submit.
 */
import { realpathSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/config/config.js';
import { endGroups } from '../../src/lib/process.js';
import { KINDS } from '../../src/terminal/kinds.js';
import { paneRef, probe, type PaneInfo } from '../../src/terminal/pane.js';
import { readScreen } from '../../src/terminal/readiness.js';
import { Tmux } from '../../src/terminal/tmux.js';
import { TmuxTypist } from '../../src/terminal/tmux-typist.js';
import { Project, waitFor } from '../helpers/harness.js';
import { claudeAgent, codexAgent, geminiAgent, installClient, VERSIONS, type Client } from './clients.js';
import { MockAnthropic, shq } from './mock-anthropic.js';
import { MockResponses } from './mock-codex.js';
import { MockGemini } from './mock-gemini.js';

const ASKED = process.env.BATON_ENTER_DELAY ?? '';
const CLIENTS = (['claude', 'codex', 'gemini'] as const).filter((c) => ASKED === '1' || ASKED.split(',').includes(c));
const TRIALS = Number(process.env.BATON_ENTER_TRIALS || 20);
/** Delays measured from the paste, and from the screen showing it. */
/** `none`: no such trials. */
const delays = (v: string): number[] => (v === 'none' ? [] : v.split(',').map(Number));
const AFTER_PASTE = delays(process.env.BATON_ENTER_DELAYS || '0,10,25,50,75,100,150');
const AFTER_SHOWN = delays(process.env.BATON_ENTER_SHOWN_DELAYS || '0,25,50');
const FLAGS: Record<Client, string> = {
  claude: '--dangerously-skip-permissions',
  codex: '--dangerously-bypass-approvals-and-sandbox',
  gemini: '--yolo',
};

type Mode = 'paste' | 'shown' | 'default';
interface Row {
  client: string;
  mode: Mode;
  d: number;
  submits: number;
  trials: number;
  /** Misses whose text was still in the box (the Enter became a newline, or was lost), and other misses. */
  inBox: number;
  other: number;
  /** Paste → the screen shows it, median (ms), in the modes that wait for it. */
  shownP50?: number;
}

const rows: Row[] = [];

afterAll(() => {
  if (!rows.length) return;
  const line = (r: Row) =>
    `| ${r.client} | ${r.mode === 'default' ? `kind default (${r.d} ms, gated on shown)` : `${r.d} ms after ${r.mode}`} | ` +
    `${r.submits}/${r.trials} | ${r.inBox} | ${r.other} | ${r.shownP50 ?? ''} |`;
  console.log(
    [
      '| client | Enter | submits/trials | missed, text left in the box | missed, other | paste → shown p50 (ms) |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows.map(line),
    ].join('\n'),
  );
});

/** A message as baton types one: its header, ten lines of body, the hint. */
function message(n: number, tag: string): string {
  const id = `msg_${String(n).padStart(4, '0')}`;
  const body = Array.from({ length: 10 }, (_, i) => `line ${i + 1} of ${id} (${tag}): keep the interface, test it`);
  return [`[baton] ${id} from t1 (turn ${n})`, ...body, `[baton] reply with: baton post "…" (to t1)`].join('\n');
}

describe.skipIf(CLIENTS.length === 0)('paste → Enter: how soon each real client takes Enter as a submit', () => {
  for (const client of CLIENTS)
    it(`${client} ${VERSIONS[client]}`, async () => {
      const bin = installClient(client);
      const project = new Project();
      const opts = { name: 'x', onMessage: () => ({ say: 'Noted.' }) };
      const mock =
        client === 'claude'
          ? await MockAnthropic.start(opts)
          : client === 'codex'
            ? await MockResponses.start(opts)
            : await MockGemini.start(opts);
      const make = client === 'claude' ? claudeAgent : client === 'codex' ? codexAgent : geminiAgent;
      const { cwd, env } = make(project.dir, project.configFile, 'x', mock.url);
      const trust =
        client === 'codex'
          ? ` -c ${shq(`projects={${JSON.stringify(realpathSync(cwd))}={trust_level="trusted"}}`)}`
          : '';
      // As `baton up` trusts a Gemini agent's folder, for this session only.
      if (client === 'gemini') env.GEMINI_CLI_TRUST_WORKSPACE = 'true';
      const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      const cmd = `${shq(bin)} ${FLAGS[client]}${trust}`;
      const started = await project.tmux([
        'new-session',
        '-d',
        '-s',
        'x',
        '-x',
        '200',
        '-y',
        '50',
        '-c',
        cwd,
        ...envArgs,
        cmd,
      ]);
      expect(started.exitCode, started.stderr).toBe(0);
      // The daemon's own way of talking to tmux: one control-mode client, to this test's server.
      Object.assign(process.env, { TMUX_TMPDIR: project.tmuxDir, TMUX: '' });
      const tmux = new Tmux({ control: true, timeoutMs: 5000 });
      const agent = { kind: client, session: 'x' } as unknown as Agent;
      const typist = new TmuxTypist(tmux, () => undefined);
      let pane: PaneInfo | null = null;
      const idle = async () => {
        const s = pane && (await readScreen(tmux, agent, pane));
        return s?.state === 'ready' && !s.busy;
      };
      try {
        await waitFor(`${client} pane`, async () => (pane = await probe(tmux, '=x:')), 30_000, 100);
        // Ready and staying so: a client may draw its empty box before a dialog or while it still starts.
        await waitFor(`${client} ready`, idle, 60_000, 200);
        await sleep(3000);
        await waitFor(`${client} still ready`, idle, 60_000, 200);
        let n = 0;
        const shownAfter: number[] = [];
        const trial = async (mode: Mode, d: number): Promise<'submit' | 'in_box' | 'other'> => {
          const id = `msg_${String(++n).padStart(4, '0')}`;
          const text = message(n, `${mode} ${d}`);
          const ref = paneRef(pane!);
          const pasted = await typist.paste(pane!, text);
          if (!pasted.ok) throw new Error(`paste: ${pasted.error}`);
          if (mode !== 'paste') {
            // The box's gate alone (and the kind's settle): its floor after the paste long past.
            if (!(await typist.landed(agent, ref, { at: 0 }))) throw new Error(`${id}: the paste never showed`);
            shownAfter.push(performance.now() - pasted.value);
          }
          const wait = mode === 'default' ? Math.max(0, d - (performance.now() - pasted.value)) : d;
          await sleep(wait);
          const entered = await typist.enter(agent, ref, { alone: true });
          if (!entered.ok) throw new Error(`Enter: ${entered.error}`);
          const got = () => mock.received().find((m) => m.id === id);
          const deadline = performance.now() + 4000;
          while (!got() && performance.now() < deadline) await sleep(25);
          const s = got() ? null : await readScreen(tmux, agent, pane!);
          const outcome = got()?.text === text ? 'submit' : s?.state === 'holding' ? 'in_box' : 'other';
          if (!got()) {
            // Not submitted: the Enter became a newline (or was lost). Submit what is there, to clear the box.
            await typist.enter(agent, ref, { alone: true });
            await waitFor(`${id} cleared`, () => got() !== undefined, 15_000, 50).catch(async (err: Error) => {
              const screen = (await project.tmux(['capture-pane', '-p', '-t', pane!.id])).stdout;
              throw new Error(
                `${err.message}; the screen:\n${screen}\nrequests: ${JSON.stringify(mock.requests.slice(-3))}`,
              );
            });
          }
          await waitFor(`${client} idle after ${id}`, idle, 30_000, 50);
          await sleep(150);
          return outcome;
        };
        const run = async (mode: Mode, d: number) => {
          const count = { submit: 0, in_box: 0, other: 0 };
          shownAfter.length = 0;
          for (let i = 0; i < TRIALS; i++) count[await trial(mode, d)]++;
          const sorted = shownAfter.sort((a, b) => a - b);
          const row: Row = {
            client: `${client} ${VERSIONS[client]}`,
            mode,
            d,
            submits: count.submit,
            trials: TRIALS,
            inBox: count.in_box,
            other: count.other,
            ...(sorted.length ? { shownP50: Math.round(sorted[sorted.length >> 1]!) } : {}),
          };
          rows.push(row);
          console.log(`[enter-delay] ${JSON.stringify(row)}`);
          return row;
        };
        for (const d of AFTER_PASTE) await run('paste', d);
        for (const d of AFTER_SHOWN) await run('shown', d);
        const kept = await run('default', KINDS[client].enterDelayMs);
        expect(kept.submits, `${client}: every Enter at its kind's default is a submit`).toBe(TRIALS);
      } finally {
        typist.close();
        await mock.close();
        const pids = (await project.tmux(['list-panes', '-a', '-F', '#{pane_pid}'])).stdout
          .split('\n')
          .filter(Boolean)
          .map(Number);
        await project.killServer();
        await endGroups(pids, 5000);
        await project.stop();
      }
    }, 3_600_000);
});
