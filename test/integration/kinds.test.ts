/**
 * Agent kinds (kinds.ts): the readiness gate and submit confirmation against a stand-in for Claude
 * Code's screen (fixtures/fake-claude.mjs), Codex's paste-burst rule, and the shell kind.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, readRecorder, ROOT, scaleTime, waitFor } from '../helpers/harness.js';

const FAKE_CLAUDE = join(ROOT, 'test', 'fixtures', 'fake-claude.mjs');
const PASTE_BURST = join(ROOT, 'test', 'fixtures', 'paste-burst.mjs');

let p: Project;
afterEach(async () => {
  await p?.stop();
});

/** A session running `script` with args; resolves once `ready` shows on its screen. */
async function session(name: string, script: string, args: string[], ready: string): Promise<string> {
  const log = join(p.dir, `${name}.log`);
  const cmd = ['exec', 'node', JSON.stringify(script), JSON.stringify(log), ...args].join(' ');
  const r = await p.tmux([
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '200',
    '-y',
    '50',
    '-e',
    `BATON_AGENT=${name}`,
    '-e',
    `BATON_CONFIG=${p.configFile}`,
    cmd,
  ]);
  if (r.exitCode !== 0) throw new Error(r.stderr);
  await waitFor(`${name} screen`, async () => (await screenOf(name)).includes(ready));
  return log;
}
/** claude2 (the receiver) running the stand-in with `c2Args`, then claude1 with none; their logs. */
async function claudes(c2Args: string[] = [], c2Ready = '❯'): Promise<{ c1: string; c2: string }> {
  const c2 = await session('claude2', FAKE_CLAUDE, c2Args, c2Ready);
  const c1 = await session('claude1', FAKE_CLAUDE, [], '❯');
  return { c1, c2 };
}
const screenOf = async (name: string) => (await p.tmux(['capture-pane', '-p', '-t', `=${name}:`])).stdout;
const submitted = (log: string) =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { text: string }).text)
    : [];

function claudeProject(extra: Record<string, unknown> = {}) {
  p = new Project({
    agents: { claude1: { kind: 'claude', command: 'x' }, claude2: { kind: 'claude', command: 'x' } },
    delivery: { enter_delay_ms: 100 },
    ...extra,
  });
}

describe('claude kind: readiness gate and submit confirmation', () => {
  it('delivers into an empty box and records the on-screen confirmation', async () => {
    claudeProject();
    const { c2 } = await claudes();
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'hello through the box' });
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    expect(p.archive()[0]!.confirmed).toBe('screen');
    expect(submitted(c2)).toHaveLength(1);
    expect(submitted(c2)[0]).toMatch(/^\[baton\] msg_0001 from claude1\nhello through the box\n/);
  });

  it('an Enter that gets lost is pressed once more, never twice the text: confirmed after a second Enter', async () => {
    claudeProject();
    const { c2 } = await claudes(['--drop-enters', '1']);
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'x'.repeat(2000) }); // shown as a [Pasted text] marker
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    expect(p.archive()[0]!.confirmed).toBe('screen_after_second_enter');
    expect(submitted(c2)).toHaveLength(1);
    expect(submitted(c2)[0]).toContain('x'.repeat(2000));
  });

  it('a paste drawn late: Enter waits until the box shows it, so an empty box really means submitted', async () => {
    claudeProject({ delivery: { enter_delay_ms: 0 } });
    const { c2 } = await claudes(['--paste-lag', '400']);
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'drawn late' });
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    expect(p.archive()[0]!.confirmed).toBe('screen');
    expect(submitted(c2)).toEqual([expect.stringMatching(/^\[baton\] msg_0001 from claude1\ndrawn late/)]);
  });

  it('text that never leaves the box is reported failed (event, not stamped delivered), never counted as delivered', async () => {
    claudeProject();
    await claudes(['--never-submit']);
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'stuck' });
    await waitFor('delivery_failed', () => p.events().find((e) => e.event === 'delivery_failed'), 15_000);
    const failed = p.events().filter((e) => e.event === 'delivery_failed');
    expect(failed[0]).toMatchObject({ id: 'msg_0001', to: 'claude2', entered: true });
    expect(String(failed[0]!.error)).toMatch(/not submitted/);
    await sleep(1500);
    expect(p.archive()[0]!.delivered_at).toBeNull();
    expect(p.events().filter((e) => e.event === 'delivered')).toHaveLength(0);
    // The same failure is reported once, not at every retry.
    expect(p.events().filter((e) => e.event === 'delivery_failed')).toHaveLength(1);
  });

  it('a delivery stuck in a box: a person is told at once what cannot happen now, and can still end the conversation', async () => {
    claudeProject();
    const { c1 } = await claudes(['--never-submit']);
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'stuck' });
    await waitFor('delivery_failed', () => p.events().find((e) => e.event === 'delivery_failed'), 15_000);
    const toStuck = await p.cli(['send', '--to', 'claude2', 'hello?']);
    expect(toStuck.exitCode).toBe(1);
    // The pipeline's gate says why: nothing is typed into a pane whose delivery still waits for its Enter.
    expect(toStuck.stdout).toMatch(
      /^not sent: claude2 cannot take it now \(a message to claude2 is still being delivered\)/,
    );
    const toOther = await p.cli(['send', '--to', 'claude1', 'you are fine']);
    expect(toOther.exitCode, toOther.stdout).toBe(0);
    await waitFor('typed', () => submitted(c1).some((t) => t.startsWith('[baton] user_0001 from user')));
    const end = await p.cli(['end', '--reason', 'stuck']);
    expect(end.exitCode, end.stdout).toBe(0);
    expect(p.state().finished).toMatchObject({ reason: 'ended', note: 'stuck' });
    expect(p.ls('requests').filter((n) => !n.endsWith('.reply.json'))).toEqual([]);
  });

  it('a dialog: the message waits in its inbox (reason in status, a screen event) and goes once the dialog is gone', async () => {
    claudeProject();
    const { c2 } = await claudes(['--dialog'], 'Do you trust');
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'after the dialog' });
    await waitFor('screen event', () => p.events().find((e) => e.event === 'screen_unknown'));
    expect(p.events().find((e) => e.event === 'screen_unknown')).toMatchObject({ agent: 'claude2', state: 'dialog' });
    expect(p.ls('c1_to_c2')).toEqual(['a.json']);
    expect(p.archive()).toHaveLength(0);
    const s = JSON.parse((await p.cli(['status', '--json'])).stdout) as {
      waiting: Record<string, { text: string; reason: string }>;
      agents: Record<string, { problem: string }>;
    };
    expect(s.waiting.c1_to_c2!.text).toMatch(/^claude2: pane %\d+: a dialog is open \(Do you trust/);
    expect(s.waiting.c1_to_c2!.reason).toBe('receiver_not_ready');
    await p.tmux(['send-keys', '-t', '=claude2:', '1']);
    await waitFor('delivered', () => p.archive()[0]?.delivered_at, 15_000);
    expect(submitted(c2)).toHaveLength(1);
  });

  it('text a person is typing in the box is never typed over: the message waits until the box is empty', async () => {
    claudeProject();
    const { c2 } = await claudes();
    await p.tmux(['send-keys', '-t', '=claude2:', '-l', 'a person is typ']);
    await waitFor('typed', async () => (await screenOf('claude2')).includes('a person is typ'));
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'wait for me' });
    await waitFor('waiting', () => p.events().find((e) => e.event === 'pane_unavailable'));
    expect(String(p.events().find((e) => e.event === 'pane_unavailable')!.reason)).toMatch(
      /input box holds text \("a person is typ"\)/,
    );
    await sleep(600);
    expect(p.archive()).toHaveLength(0);
    await p.tmux(['send-keys', '-t', '=claude2:', 'C-u']); // the person clears the box
    await waitFor('delivered', () => p.archive()[0]?.delivered_at, 15_000);
    expect(submitted(c2)).toEqual([expect.stringMatching(/^\[baton\] msg_0001 from claude1\nwait for me/)]);
  });

  it('a screen baton does not recognise is never typed into: a screen_unknown event, the message waits', async () => {
    claudeProject();
    await claudes(['--blank'], 'loading');
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'nobody home' });
    await waitFor('screen event', () => p.events().find((e) => e.event === 'screen_unknown'));
    expect(p.events().find((e) => e.event === 'screen_unknown')).toMatchObject({
      agent: 'claude2',
      state: 'unknown',
      detail: 'loading…',
    });
    await sleep(500);
    expect(p.ls('c1_to_c2')).toEqual(['a.json']);
  });

  it('copy mode (someone scrolling): the message waits, and goes when the mode ends', async () => {
    claudeProject();
    const { c2 } = await claudes();
    await p.tmux(['copy-mode', '-t', '=claude2:']);
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'after scrolling' });
    await waitFor('waiting', () => p.events().find((e) => e.event === 'pane_unavailable'));
    expect(String(p.events().find((e) => e.event === 'pane_unavailable')!.reason)).toMatch(/copy mode/);
    await p.tmux(['send-keys', '-t', '=claude2:', '-X', 'cancel']);
    await waitFor('delivered', () => p.archive()[0]?.delivered_at, 15_000);
    expect(submitted(c2)).toHaveLength(1);
  });
});

describe('other kinds', () => {
  it("codex: a pane that does not show Codex's screen is never typed into", async () => {
    p = new Project({
      agents: { claude1: { kind: 'generic', command: 'x' }, claude2: { kind: 'codex', command: 'x' } },
    });
    const t = scaleTime(p, 0.25);
    // A program that would take the message (it submits on Enter), but whose screen is not Codex's.
    const log = await session('claude2', PASTE_BURST, [], 'burst-aware ready');
    await p.recorder('claude1');
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'one\ntwo' });
    await waitFor('the screen reported', () =>
      p.events().find((e) => e.event === 'screen_unknown' && e.agent === 'claude2'),
    );
    await sleep(t.paneRetryMs.slice(0, 4).reduce((a, b) => a + b)); // four looks again (here scaled): still not typed
    expect(submitted(log)).toEqual([]);
    expect(p.archive()[0]?.delivered_at ?? null).toBeNull();
  });

  it('shell: a shell-kind pane gets one inert comment line naming the message, never its content', async () => {
    p = new Project({
      agents: { claude1: { kind: 'generic', command: 'x' }, claude2: { kind: 'shell', command: 'x' } },
    });
    const logs = { claude2: await p.recorder('claude2'), claude1: await p.recorder('claude1') };
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'echo hi\n`touch /tmp/x` $(rm -rf ~)' });
    await waitFor('read', () => readRecorder(logs.claude2).pastes.length === 1);
    expect(readRecorder(logs.claude2).pastes).toEqual([
      '# baton: msg_0001 from claude1 - read it with: baton show msg_0001',
    ]);
    const show = await p.cli(['show', 'msg_0001']);
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain('echo hi\n`touch /tmp/x` $(rm -rf ~)');
  });
});

/**
 * The generic kind with no `delivery.enter_delay_ms` (kinds.ts): where tmux can tell the program uses
 * bracketed paste, Enter as soon as the paste's end shows at its cursor — no sooner than 50 ms after the
 * paste — else 150 ms after it. Two recorders answer each other for six messages, then each gets the notice
 * that the conversation finished (the same rule: it goes through the same pipeline); each gap is read by the
 * receiving recorder, from the read that ended a paste to the read that brought its Enter.
 */
describe('generic kind: Enter once the screen shows the paste landed', () => {
  async function enterGaps(opts: { echo: boolean; tracker: boolean }): Promise<number[]> {
    p = new Project({ turns: { max_turns: 6 }, delivery: {} });
    const flags = opts.echo ? ['--echo'] : [];
    const logs = [
      await p.recorder('claude1', { reply: true, flags, tracker: opts.tracker }),
      await p.recorder('claude2', { reply: true, flags, tracker: opts.tracker }),
    ];
    if (opts.tracker)
      await waitFor('the tracker saw bracketed paste asked for', async () =>
        (await p.tmux(['show-options', '-p', '-v', '-t', '=claude2:', '@baton_paste'])).stdout.includes('on'),
      );
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'first line\nsecond line' });
    await waitFor(
      'six delivered, and both told it finished',
      () => logs.every((l) => readRecorder(l).pastes.some((t) => t.includes('the conversation has finished'))),
      60_000,
    );
    return logs.flatMap(gapsIn);
  }

  /**
   * Per paste: ms from the read that ended it to the read that brought its Enter. A paste and its Enter read
   * at once say nothing of the time between them (the recorder was busy posting its reply meanwhile): left out.
   */
  function gapsIn(log: string): number[] {
    const gaps: number[] = [];
    let ended: number | null = null;
    for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
      const { t, b } = JSON.parse(line) as { t: number; b: string };
      const s = Buffer.from(b, 'base64').toString('latin1');
      const end = s.lastIndexOf('\x1b[201~');
      if (end >= 0) {
        ended = s.slice(end).includes('\r') ? null : t;
        continue;
      }
      if (ended !== null && s.includes('\r')) {
        gaps.push(t - ended);
        ended = null;
      }
    }
    return gaps;
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

  it('a program that echoes its input, its bracketed paste known: Enter when the paste shows, at least 50 ms after it', async () => {
    const gaps = await enterGaps({ echo: true, tracker: true });
    expect(gaps.length, JSON.stringify(gaps)).toBeGreaterThanOrEqual(6);
    expect(Math.min(...gaps), JSON.stringify(gaps)).toBeGreaterThanOrEqual(40);
    expect(median(gaps), JSON.stringify(gaps)).toBeLessThan(110);
  }, 90_000);

  it('a program that echoes nothing, or one tmux cannot tell uses bracketed paste: Enter 150 ms after the paste', async () => {
    for (const opts of [
      { echo: false, tracker: true },
      { echo: true, tracker: false },
    ]) {
      const gaps = await enterGaps(opts);
      await p.stop();
      expect(gaps.length, JSON.stringify({ opts, gaps })).toBeGreaterThanOrEqual(6);
      expect(median(gaps), JSON.stringify({ opts, gaps })).toBeGreaterThanOrEqual(135);
    }
  }, 120_000);
});
