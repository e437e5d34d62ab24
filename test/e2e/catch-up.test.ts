/**
 * Catch-ups (docs/protocol.md §11) into the real clients — Claude Code, Codex CLI and Gemini CLI, each against
 * its own local API mock — and what they cost. Two recorder agents talk under handoff while the real client
 * waits; then one of them hands it the turn, so the message that gives it the turn carries their last ten
 * messages. The catch-up's size is set by their messages: about 2, 8 and 32 KB, and none (the first message to
 * the client, and one more once it is warm: the baseline).
 *
 * For each one the mock is the truth: the model received the whole typed text — header, catch-up, message,
 * hint — exactly as baton typed it, in one user turn (submitted once); and the client's prompt hook reported
 * it intact. Printed for a person to read (never asserted: timing on a shared machine is noise): the
 * delivery time (turn → paste done: reading the archive, building the block, the paste) and Enter → receipt.
 *
 * The clients are installed on demand (scripts/agent-cli.mjs, cached in .cache/); a failed install fails
 * the test, it never skips.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ArchiveRecord } from '../../src/core/record.js';
import { endGroups } from '../../src/lib/process.js';
import { allRecords, expectedText } from '../helpers/group.js';
import { Project, RECORDER, waitFor } from '../helpers/harness.js';
import { claudeAgent, codexAgent, geminiAgent, installClient, VERSIONS, type Client } from './clients.js';
import { MockAnthropic, shq } from './mock-anthropic.js';
import { MockResponses } from './mock-codex.js';
import { MockGemini } from './mock-gemini.js';

type Mock = MockAnthropic | MockResponses | MockGemini;
let p: Project | undefined;
let mock: Mock | undefined;

afterEach(async () => {
  await mock?.close();
  mock = undefined;
  if (!p) return;
  const pids = (await p.tmux(['list-panes', '-a', '-F', '#{pane_pid}'])).stdout.split('\n').filter(Boolean).map(Number);
  await p.killServer();
  await endGroups(pids, 5000);
  await p.stop();
  p = undefined;
});

/** A talker's message of about `bytes`: numbered lines, as a plan or a review would read. */
const said = (n: number, bytes: number) => {
  const lines: string[] = [];
  for (let i = 1; Buffer.byteLength(lines.join('\n')) < bytes - 60; i++)
    lines.push(`${n}.${i} point ${i} of message ${n}: keep the interface, test the edge cases`);
  return lines.join('\n');
};

interface Measured {
  gap: string;
  id: string;
  catchUpBytes: number;
  typedBytes: number;
  deliveryMs: number;
  enterToReceiptMs: number;
}

async function measure(kind: Client): Promise<Measured[]> {
  const bin = installClient(kind);
  const project = (p = new Project());
  const trace: string[] = [];
  const opts = { name: 'x', log: (l: string) => trace.push(l), onMessage: () => ({ say: 'Noted, thank you.' }) };
  mock =
    kind === 'claude'
      ? await MockAnthropic.start(opts)
      : kind === 'codex'
        ? await MockResponses.start(opts)
        : await MockGemini.start(opts);
  const make = kind === 'claude' ? claudeAgent : kind === 'codex' ? codexAgent : geminiAgent;
  const { cwd, env } = make(project.dir, project.configFile, 'x', mock.url);
  const flags =
    kind === 'claude'
      ? '--dangerously-skip-permissions'
      : kind === 'codex'
        ? '--dangerously-bypass-approvals-and-sandbox'
        : '--yolo';
  const talker = (name: string) => ({
    kind: 'generic',
    command: `exec node ${shq(RECORDER)} ${shq(join(project.dir, `${name}.log`))}`,
  });
  const order = ['t1', 't2', 'x'];
  project.writeConfig({
    message_dir: './messages',
    agents: { t1: talker('t1'), t2: talker('t2'), x: { kind, cwd, command: `${shq(bin)} ${flags}`, env } },
    first_turn: 't1',
    // The catch-up's size is set by what was said: budgets wide enough not to cut it.
    // The talkers' filler is one line said again with other numbers: the loop guard would rightly pause it.
    turns: { policy: 'handoff', catch_up_max_bytes: 65536, catch_up_message_max_bytes: 8192, loop_guard: false },
    inbox: { max_bytes: 1048576, settle_ms: 300 },
  });
  const up = await project.cli(['up']);
  expect(up.exitCode, up.stdout + up.stderr).toBe(0);
  const post = async (as: string, to: string, text: string) => {
    const r = await project.cli(['post', '--as', as, '--to', to, '-'], { input: text });
    expect(r.exitCode, r.stderr).toBe(0);
  };
  const count = () => project.archive().length;
  const stamped = (n: number) => waitFor(`msg ${n} stamped`, () => project.archive()[n - 1]?.delivered_at, 120_000, 50);
  const out: Measured[] = [];
  try {
    // The first message to x (nothing missed: the client's first prompt), the three gaps, and nothing missed
    // again (the baseline, with the client warm).
    const gaps: Array<[string, number]> = [
      ['first', 0],
      ['2 KB', 2048],
      ['8 KB', 8192],
      ['32 KB', 32768],
      ['none', 0],
    ];
    for (const [gap, bytes] of gaps) {
      // Ten messages between the talkers (t1 holds the turn here), then t1 hands x the turn.
      for (let i = 0; bytes && i < 10; i++) {
        const [from, to] = i % 2 ? ['t2', 't1'] : ['t1', 't2'];
        const next = count() + 1;
        await post(from, to, said(next, bytes / 10));
        await stamped(next);
      }
      const n = count() + 1;
      await post('t1', 'x', `over to you, x (${gap} missed)`);
      await stamped(n);
      const id = `msg_${String(n).padStart(4, '0')}`;
      await waitFor(
        `x's model to get ${id} and its hook to report it`,
        () =>
          mock!.received().some((d) => d.id === id) &&
          (project.archive()[n - 1] as ArchiveRecord | undefined)?.received !== undefined,
        120_000,
        100,
      );
      const records = allRecords(project.messages);
      const r = records.find((x) => x.id === id)!;
      const typed = expectedText(records, r, {
        policy: 'handoff',
        order,
        rules: { mode: 'full', maxBytes: 65536, messageMaxBytes: 8192 },
      });
      const got = mock.received().filter((d) => d.id === id);
      expect(got.length, `${id} reached x's model once`).toBe(1);
      expect(got[0]!.text, `${id} as typed, catch-up included`).toBe(typed);
      expect(r.received?.intact, `${id}: x's hook reported it intact`).toBe(true);
      const missed = records.filter(
        (x) => x.id.startsWith('msg_') && x.id < id && x.sender !== 'x' && x.receiver !== 'x',
      );
      if (bytes) expect(typed).toContain(`> ${missed.at(-1)!.id} `);
      const delivered = project.events().find((e) => e.event === 'delivered' && e.id === id)!;
      const block = typed.split('\n[baton] the message to you:\n')[0]!;
      out.push({
        gap,
        id,
        catchUpBytes: bytes ? Buffer.byteLength(block.slice(block.indexOf('\n') + 1)) : 0,
        typedBytes: Buffer.byteLength(typed),
        deliveryMs: Number(delivered.delivery_ms),
        enterToReceiptMs: Date.parse(r.received!.at) - Date.parse(String(delivered.entered_at)),
      });
      // x answers in plain text and keeps the turn: hand it back to t1 for the next round.
      await post('x', 't1', 'back to you, t1');
      await stamped(n + 1);
    }
    const bad = project
      .events()
      .filter((e) => ['delivery_failed', 'redelivered', 'delivery_unconfirmed'].includes(e.event));
    expect(bad).toEqual([]);
  } catch (err) {
    const saved = join(tmpdir(), `baton-e2e-catch-up-${kind}-${Date.now()}.json`);
    writeFileSync(saved, JSON.stringify({ trace, requests: mock.requests, events: project.events() }, null, 1));
    console.error(`── ${kind}: every request the mock got and the events: ${saved}`);
    throw err;
  }
  console.log(
    `[e2e catch-up] ${kind} ${VERSIONS[kind]}: ${out
      .map(
        (m) =>
          `${m.gap} (${m.id}: block ${m.catchUpBytes} B, typed ${m.typedBytes} B): turn → paste ${m.deliveryMs} ms, Enter → receipt ${m.enterToReceiptMs} ms`,
      )
      .join('; ')}`,
  );
  return out;
}

describe('catch-ups into the real clients: received whole, submitted once, receipts intact', () => {
  for (const kind of ['claude', 'codex', 'gemini'] as const)
    it(`${kind}: no catch-up, then ten missed messages of about 2, 8 and 32 KB in all`, async () => {
      await measure(kind);
    }, 900_000);
});
