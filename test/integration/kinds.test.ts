/**
 * Agent kinds (kinds.ts): the readiness gate and submit confirmation against a stand-in for Claude
 * Code's screen (fixtures/fake-claude.mjs), Codex's paste-burst rule, and the shell kind.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, readRecorder, ROOT, waitFor } from '../helpers/harness.js';

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
    // A program that would take the message (it submits on Enter), but whose screen is not Codex's.
    const log = await session('claude2', PASTE_BURST, [], 'burst-aware ready');
    await p.recorder('claude1');
    await p.startDaemon();
    p.send('c1_to_c2', 'a.json', { content: 'one\ntwo' });
    await waitFor('the screen reported', () =>
      p.events().find((e) => e.event === 'screen_unknown' && e.agent === 'claude2'),
    );
    await sleep(1500);
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
