/**
 * `baton ui` in a real browser (Debian's Chromium, driven by playwright-core), against the real daemon
 * and recorder agents on a private tmux server.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeAgentStates } from '../../src/terminal/hooks/spool.js';
import { Project, readRecorder, ROOT, waitFor } from '../helpers/harness.js';
import { launchBrowser, SHOTS, startUi, type RunningUi } from '../helpers/ui.js';

let browser: Browser;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

/**
 * Wait for the result line to say `text` as a success. A timeout says what the line and the daemon said
 * instead: CI shows a failure's message, not the page.
 */
async function resultOk(page: Page, p: Project, text: string): Promise<void> {
  try {
    await page.locator('#result.ok', { hasText: text }).waitFor();
  } catch (err) {
    const line = await page.locator('#result').evaluate((e) => `${e.className}: ${e.textContent}`);
    const events = p
      .events()
      .filter((e) => e.event !== 'delivered') // a resumed ping-pong's deliveries would hide the rest
      .slice(-12)
      .map((e) => JSON.stringify(e));
    throw new Error(`no "${text}" on the result line; it says ${line}; last events:\n${events.join('\n')}`, {
      cause: err,
    });
  }
}

function project(config: Record<string, unknown> = {}): Project {
  const p = new Project(config);
  cleanups.push(() => p.stop());
  return p;
}

async function ui(p: Project, args: string[] = [], port = 0): Promise<RunningUi> {
  const u = await startUi(p, args, port);
  cleanups.push(() => u.stop());
  return u;
}

/** A page that records every request it makes, so a test can prove none leave the machine. */
async function open(url: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  cleanups.push(() => context.close());
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(url);
  await page.locator('#live', { hasText: /^live$/ }).waitFor();
  return { page, requests, errors };
}

/** The usual scene: two recorder agents, the daemon, `baton ui`, and a page open on it. */
async function twoAgents(config: Record<string, unknown> = {}) {
  const p = project(config);
  const log1 = await p.recorder('claude1');
  const log2 = await p.recorder('claude2');
  await p.startDaemon();
  const u = await ui(p);
  return { p, u, log1, log2, ...(await open(u.url)) };
}

const HOSTILE = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">\n</div><b>not bold</b> & &amp; "quotes" 'single'`;

describe('baton ui', () => {
  it('shows deliveries live, renders hostile text as text, sends, ends and resumes from the page', async () => {
    const { p, u, log2, page, requests, errors } = await twoAgents();

    // Two agent lanes and two pane cards; the recorder's screen arrives from capture-pane.
    await expect
      .poll(() => page.locator('#lanes-head > div').allTextContents(), { timeout: 15_000 })
      .toEqual(['claude1', 'claude2']);
    await page.locator('[data-agent="claude2"] .screen', { hasText: 'recorder ready (claude2)' }).waitFor();
    await page.locator('[data-agent="claude1"] .state', { hasText: 'alive' }).waitFor();
    await page.locator('#facts', { hasText: 'running (pid' }).waitFor();

    p.send('c1_to_c2', '001.json', { content: 'hello from claude1', subject: 'greeting' });
    const first = page.locator('#m-msg_0001');
    await first.locator('.content', { hasText: 'hello from claude1' }).waitFor();
    expect(await first.locator('.who').textContent()).toBe('claude1');
    expect(await first.getAttribute('class')).toContain('lane-0');

    // Agent-written markup stays text: in the content, the subject, and a rejected file's name.
    p.send('c2_to_c1', '002.json', {
      content: HOSTILE,
      subject: '<img src=y onerror="window.__pwned = 3">',
      reply_to: 'msg_0001',
    });
    const second = page.locator('#m-msg_0002');
    await second.waitFor();
    expect(await second.locator('.content').textContent()).toBe(HOSTILE);
    expect(await second.locator('.subject').textContent()).toBe('<img src=y onerror="window.__pwned = 3">');
    expect(await second.getAttribute('class')).toContain('lane-1');
    p.send('c1_to_c2', '<img src=z onerror="window.__pwned=4">.json', '{ not json');
    await page.locator('#events', { hasText: 'rejected' }).waitFor();
    await page.locator('#facts dd', { hasText: /^1$/ }).waitFor();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('body script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    // The rejected count opens the reasons, as text.
    await page.locator('#rejected-button').click();
    await page.locator('#dialog-body', { hasText: '<img src=z onerror="window.__pwned=4">.json' }).waitFor();
    expect(await page.locator('#dialog-body').textContent()).toContain('invalid JSON');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.keyboard.press('Escape');
    expect(await page.locator('#dialog').evaluate((d) => (d as HTMLDialogElement).open)).toBe(false);

    // The reply_to link jumps to the message it answers.
    await second.locator('.reply').click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('m-msg_0001');

    // Sending as user, keyboard only: choose the agent, type, Ctrl+Enter.
    await page.locator('#send-to').selectOption('claude2');
    await page.locator('#send-text').fill('hello from the page <b>&</b>');
    await page.locator('#send-text').press('Control+Enter');
    await page.locator('#result', { hasText: 'user_0001 typed into claude2' }).waitFor();
    await page.locator('#m-user_0001 .content', { hasText: 'hello from the page <b>&</b>' }).waitFor();
    await waitFor('the person message in claude2', () =>
      readRecorder(log2).pastes.some((t) => t.includes('hello from the page <b>&</b>')),
    );
    expect(p.state().message_counter).toBe(2); // a person's message moves no turn

    // End with a reason: later files are held and the header says so; resume delivers them.
    await page.locator('#end-reason').fill('lunch');
    await page.locator('#end-reason').press('Tab'); // keyboard only: the next stop is the End button
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('end');
    await page.keyboard.press('Enter');
    await page.locator('#facts', { hasText: 'finished: ended (lunch)' }).waitFor();
    expect((p.state().finished as { reason: string }).reason).toBe('ended');
    p.send('c1_to_c2', '003.json', { content: 'written while ended' });
    await page.locator('#facts', { hasText: 'c1_to_c2: 1' }).waitFor();
    expect(await page.locator('#m-msg_0003').count()).toBe(0);
    await page.locator('#resume').click();
    await page.locator('#m-msg_0003 .content', { hasText: 'written while ended' }).waitFor();
    await page.locator('#facts', { hasText: /conversation:?\s*running/ }).waitFor();

    // Each message once, in delivery order.
    expect(
      await page.locator('#transcript > li').evaluateAll((li) => li.map((e) => (e as HTMLElement).dataset.id)),
    ).toEqual(['msg_0001', 'msg_0002', 'user_0001', 'msg_0003']);

    await page.screenshot({ path: join(SHOTS, 'ui-dashboard.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(dark).not.toBe(light);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(SHOTS, 'ui-dashboard-dark.png') });

    const origin = new URL(u.url).origin;
    expect(requests.filter((r) => !r.startsWith(`${origin}/`) && !r.startsWith('data:'))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('catches up after a reconnect without showing anything twice', async () => {
    const talk = await twoAgents();
    const { p, page } = talk;
    let u = talk.u;
    p.send('c1_to_c2', '001.json', { content: 'before the restart' });
    await page.locator('#m-msg_0001').waitFor();

    // The server goes away; two messages are delivered meanwhile; it comes back on the same port.
    await u.stop();
    await page.locator('#live', { hasText: 'reconnecting' }).waitFor();
    p.send('c2_to_c1', '002.json', { content: 'while away 1' });
    await waitFor('msg_0002 delivered', () => p.events().some((e) => e.event === 'delivered' && e.id === 'msg_0002'));
    p.send('c1_to_c2', '003.json', { content: 'while away 2' });
    await waitFor('msg_0003 delivered', () => p.events().some((e) => e.event === 'delivered' && e.id === 'msg_0003'));
    u = await ui(p, [], u.port);
    await page.locator('#m-msg_0003').waitFor({ timeout: 15_000 });
    await page.locator('#live', { hasText: /^live$/ }).waitFor();
    p.send('c2_to_c1', '004.json', { content: 'after the restart' });
    await page.locator('#m-msg_0004').waitFor();
    // The restarted server has a new page token; the stream brought it, so controls still work.
    await page.locator('#send-to').selectOption('claude1');
    await page.locator('#send-text').fill('still steering');
    await page.locator('#send').click();
    await page.locator('#result.ok', { hasText: 'user_0001 typed into claude1' }).waitFor();
    expect(
      await page.locator('#transcript > li').evaluateAll((li) => li.map((e) => (e as HTMLElement).dataset.id)),
    ).toEqual(['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004', 'user_0001']);
    // The event list, too, got each delivery once.
    expect(await page.locator('#events li', { hasText: 'delivered' }).count()).toBe(4);
  });

  it('pages through 10,000 archived messages and still shows new ones live', async () => {
    const p = project();
    const archive = p.path('archive');
    mkdirSync(archive, { recursive: true });
    const N = 10_000;
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 1; i <= N; i++) {
      const id = `msg_${String(i).padStart(4, '0')}`;
      const [sender, receiver] = i % 2 ? ['claude1', 'claude2'] : ['claude2', 'claude1'];
      const at = new Date(t0 + i * 1000).toISOString();
      const record = {
        content: `archived message ${i}`,
        id,
        reply_to: i > 1 ? `msg_${String(i - 1).padStart(4, '0')}` : null,
        sender,
        receiver,
        direction: i % 2 ? 'c1_to_c2' : 'c2_to_c1',
        source_file: `${i}.json`,
        received_at: at,
        delivered_at: at,
        confirmed: 'not_checked',
      };
      writeFileSync(join(archive, `${id}.json`), JSON.stringify(record));
    }
    writeFileSync(
      p.path('state.json'),
      JSON.stringify({
        current_turn: 'claude1',
        last_message_id: 'msg_10000',
        message_counter: N,
        pending_reply_to: 'msg_10000',
      }),
    );
    await p.recorder('claude1');
    await p.recorder('claude2');
    await p.startDaemon();
    const u = await ui(p);
    const opened = Date.now();
    const { page } = await open(u.url);

    await page.locator('#m-msg_10000').waitFor();
    // Reported, not asserted (machines here are noisy): how long a 10,000-message conversation takes to show.
    console.log(`10,000 archived: page live with the newest 100 in ${Date.now() - opened} ms`);
    expect(await page.locator('#transcript > li').count()).toBe(100);
    await page.locator('#older', { hasText: '9900 more' }).click();
    await page.locator('#m-msg_9801').waitFor();
    expect(await page.locator('#transcript > li').count()).toBe(200);
    expect(await page.locator('#older').textContent()).toContain('9800 more');

    p.send('c1_to_c2', 'next.json', { content: 'message ten thousand and one' });
    await page.locator('#m-msg_10001 .content', { hasText: 'ten thousand and one' }).waitFor();
    expect(await page.locator('#transcript > li').count()).toBe(201);
    const ids = await page
      .locator('#transcript > li')
      .evaluateAll((li) => li.map((e) => (e as HTMLElement).dataset.id));
    expect(ids[0]).toBe('msg_9801');
    expect(ids.at(-1)).toBe('msg_10001');
    expect(new Set(ids).size).toBe(201);

    // Long content shows its first 65,536 characters; "Show all" fetches the rest.
    const long = `${'x'.repeat(70_000)}<end>`;
    p.send('c2_to_c1', 'long.json', { content: long });
    const big = page.locator('#m-msg_10002');
    await big.locator('.more', { hasText: '70,005 characters' }).waitFor();
    expect((await big.locator('.content').textContent())!.length).toBe(65_536);
    await big.locator('.more').click();
    await big.locator('.more').waitFor({ state: 'detached' });
    expect(await big.locator('.content').textContent()).toBe(long);

    // A reply_to outside the loaded pages opens in a dialog, fetched on its own.
    await page.evaluate(() => document.getElementById('scroller')!.scrollTo(0, 0));
    await page.locator('#m-msg_9801 .reply').click();
    await page.locator('#dialog-body', { hasText: 'archived message 9800' }).waitFor();
  });

  it('shows eight agents, and works with no agent running and no daemon', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `a${i + 1}`);
    const p = project({
      agents: Object.fromEntries(names.map((n) => [n, { kind: 'generic', command: 'x' }])),
      directions: undefined,
      turns: { policy: 'round_robin' },
    });
    // Nothing runs yet: no tmux server, no daemon.
    const u = await ui(p);
    const { page } = await open(u.url);
    await page.locator('#facts', { hasText: 'not running' }).waitFor();
    expect(await page.locator('.agent').count()).toBe(8);
    await page.locator('[data-agent="a8"] .state', { hasText: 'missing' }).waitFor();
    expect(await page.locator('#empty').isVisible()).toBe(true);
    // With no daemon the control answers itself (as the CLI does), and says why it could not type.
    await page.locator('#send-to').selectOption('a3');
    await page.locator('#send-text').fill('anyone there?');
    await page.locator('#send').click();
    await page.locator('#result.bad', { hasText: 'not sent: a3 cannot take it now' }).waitFor();

    for (const n of names) await p.recorder(n);
    await p.startDaemon();
    await page.locator('#facts', { hasText: 'running (pid' }).waitFor();
    for (let i = 0; i < 8; i++) {
      const from = names[i]!;
      const to = names[(i + 1) % 8]!;
      p.send(`${from}_to_${to}`, `${i}.json`, { content: `turn ${i + 1} from ${from}` });
      await page.locator(`#m-msg_000${i + 1}`).waitFor();
    }
    expect(await page.locator('#transcript').getAttribute('class')).toContain('column');
    expect(await page.locator('#transcript > li .who').allTextContents()).toEqual(names);
    await page.locator('[data-agent="a8"] .state', { hasText: 'alive' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'ui-eight-agents.png') });
  });

  it('marks the message a silent agent was reminded about, live and after a reload', async () => {
    // Reminders 1.5 s apart: two of them, then the turn stalls.
    const { p, page } = await twoAgents({ turns: { timeout_s: 1.5, max_nudges: 2 } });
    p.send('c1_to_c2', '001.json', { content: 'your turn, claude2' });
    await page.locator('#m-msg_0001').waitFor();
    // No mark before a reminder was sent. Asserted as that state, not as "hidden the moment the bubble shows":
    // on a loaded machine the bubble once showed after the first reminder had gone out, its mark rightly with it.
    const marked = await page.locator('#m-msg_0001 .nudge').isVisible();
    const nudged = p.events().some((e) => e.event === 'nudged' && e.reply_to === 'msg_0001');
    expect(!marked || nudged, 'a reminder mark shown though no reminder was sent').toBe(true);
    await page.locator('#m-msg_0001 .nudge', { hasText: '2 reminders' }).waitFor();
    await page.locator('#facts', { hasText: 'stalled' }).waitFor();
    await page.reload();
    await page.locator('#m-msg_0001 .nudge', { hasText: '2 reminders' }).waitFor();
    expect(p.events().filter((e) => e.event === 'nudged' && e.reply_to === 'msg_0001')).toHaveLength(2);
  });

  it("answers the turn holder's dialog by its button: the keys that pick it, an answered event by the dashboard", async () => {
    // The stand-in for Claude Code opens its Bash permission dialog for a prompt line `ASK <command>`.
    const fake = join(ROOT, 'test', 'fixtures', 'fake-claude.mjs');
    const command = (name: string) => `node ${JSON.stringify(fake)} ${JSON.stringify(`../../${name}.log`)} --hooks`;
    const p = project({
      agents: {
        a: { kind: 'claude', command: command('a'), reply: 'auto' },
        b: { kind: 'claude', command: command('b'), reply: 'auto' },
      },
      directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
      turns: { policy: 'alternate' },
    });
    const up = await p.cli(['up', '--topic', 'ASK touch made.txt']);
    expect(up.exitCode, up.stderr).toBe(0);
    const { page, errors } = await open((await ui(p)).url);
    const box = page.locator('#dialogs li[data-agent="a"]');
    await box.locator('.question', { hasText: 'Bash: touch made.txt (Run it)' }).waitFor();
    await box.locator('.badge', { hasText: 'blocks the conversation' }).waitFor();
    await page.locator('#facts', { hasText: 'a waits for a person (permission)' }).waitFor();
    const yes = box.locator('button.choice', { hasText: '1. Yes' });
    await yes.waitFor();
    expect(await box.locator('button.choice').allTextContents()).toEqual([
      '1. Yes',
      '2. Yes, and always allow access to cwd/ from this project',
      '3. No',
    ]);
    // The overview of the machine's conversations says who blocks this one.
    const all = await ui(p, ['--all']);
    const overview = await open(`${all.url.replace(/\/$/, '')}/all`);
    await overview.page
      .locator('#rows td[data-col="state"]', { hasText: 'running, blocked: a (permission)' })
      .waitFor();
    await yes.click();
    const log = () => readFileSync(join(p.dir, 'a.log'), 'utf8');
    await waitFor('the command ran', () => log().includes('"ran":"touch made.txt"'), 10_000);
    await page.locator('#blocked-box').waitFor({ state: 'hidden' });
    expect(p.events().find((e) => e.event === 'answered')).toMatchObject({
      agent: 'a',
      choice: 'Yes',
      by: 'dashboard',
    });
    expect(log()).not.toContain('into_dialog');
    expect(errors).toEqual([]);
  });

  it('approves and rejects in moderated mode', async () => {
    const { p, log1, log2, page } = await twoAgents({ turns: { moderated: true } });
    p.send('c1_to_c2', '001.json', {
      content: `please approve me ${HOSTILE}`,
      subject: '<img src=q onerror="window.__pwned=5">',
    });
    const item = page.locator('#pending > li', { hasText: 'please approve me' });
    await item.waitFor();
    expect(await item.locator('.content').textContent()).toBe(`please approve me ${HOSTILE}`);
    expect(await item.locator('.subject').textContent()).toBe('<img src=q onerror="window.__pwned=5">');
    expect(await page.locator('img').count()).toBe(0);
    await item.getByRole('button', { name: 'Approve' }).click();
    await page.locator('#m-msg_0001 .content', { hasText: 'please approve me' }).waitFor();
    await waitFor('msg_0001 in claude2', () => readRecorder(log2).pastes.some((t) => t.includes('please approve me')));
    await page.locator('#pending-box').waitFor({ state: 'hidden' });

    p.send('c2_to_c1', '002.json', { content: 'reject me' });
    const bad = page.locator('#pending > li', { hasText: 'reject me' });
    await bad.waitFor();
    await bad.getByRole('button', { name: 'Reject' }).click();
    await page.locator('#result.bad', { hasText: 'say why' }).waitFor(); // a reason is required
    await bad.getByRole('textbox').fill('too vague');
    await bad.getByRole('button', { name: 'Reject' }).click();
    await page.locator('#result.ok').waitFor();
    await waitFor('the reason in claude2', () => readRecorder(log2).pastes.some((t) => t.includes('too vague')));
    expect(readRecorder(log1).pastes.some((t) => t.includes('reject me'))).toBe(false);
    expect(p.state().current_turn).toBe('claude2');
    expect(JSON.parse(readFileSync(p.path('archive', 'msg_0001.json'), 'utf8')).content).toBe(
      `please approve me ${HOSTILE}`,
    );
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('a newcomer sees it load, the events so far, demo agents for what they are, and can start, pause and resume', async () => {
    const p = project();
    const log1 = await p.recorder('claude1', { reply: true });
    const log2 = await p.recorder('claude2', { reply: true });
    await p.startDaemon();
    const u = await ui(p);
    p.send('c1_to_c2', '001.json', { content: 'first' });
    await waitFor('msg_0002 (claude2 answered)', () => p.archive()[1]?.delivered_at, 20_000);
    await p.cli(['pause']); // the recorders would otherwise answer each other for ever

    // While the snapshot is on its way the page says it is loading, never "No messages yet".
    const context = await browser.newContext();
    cleanups.push(() => context.close());
    const page = await context.newPage();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/api/snapshot*', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(u.url);
    expect(await page.locator('#empty').textContent()).toBe('Loading the conversation…');
    expect(await page.locator('#empty').isVisible()).toBe(true);
    release();
    await page.locator('#m-msg_0002').waitFor();
    expect(await page.locator('#empty').isHidden()).toBe(true);
    // The events so far are there at once, before any new one comes.
    expect(await page.locator('#events > li').count()).toBeGreaterThanOrEqual(4);
    expect(await page.locator('#events > li strong').allTextContents()).toEqual(
      expect.arrayContaining(['delivered', 'paused']),
    );
    await page.locator('#facts', { hasText: 'paused' }).waitFor();

    // A pane running the bundled demo agent says so on its card, not the configured kind.
    expect(await page.locator('[data-agent="claude1"] .kind').textContent()).toBe('generic');
    await p.tmux(['set-option', '-t', '=claude2:', '@baton_demo', '1']);
    await page.locator('[data-agent="claude2"] .kind', { hasText: 'demo (for generic)' }).waitFor({ timeout: 15_000 });
    await p.tmux(['set-option', '-u', '-t', '=claude2:', '@baton_demo']);
    // What an agent's own hooks last said (written by the daemon from its hook notes) is on its card.
    await writeAgentStates(p.path(), {
      claude1: { state: 'permission', since: new Date().toISOString(), detail: 'Bash' },
      claude2: { state: 'busy', since: new Date().toISOString() },
    });
    await page
      .locator('[data-agent="claude1"] .pane', { hasText: 'waiting for a permission since' })
      .waitFor({ timeout: 15_000 });
    await page.locator('[data-agent="claude2"] .pane', { hasText: 'busy since' }).waitFor({ timeout: 15_000 });
    await writeAgentStates(p.path(), {});

    // Resume from the page: the held answer goes through; Pause holds the next one; the topic control
    // types a kick-off to the holder, which answers it through baton.
    await page.getByRole('button', { name: 'Resume' }).click();
    await resultOk(page, p, 'resumed (it was paused)');
    await page.getByRole('button', { name: 'Pause' }).click();
    await resultOk(page, p, 'paused: messages wait'); // not the resume's line, which says "paused" too
    const holder = p.state().current_turn as string;
    await page.getByLabel('Give the agents a topic').fill('Plan the next release');
    await page.getByRole('button', { name: 'Start' }).click();
    await resultOk(page, p, `user_0001 typed into ${holder}'s pane`);
    const holderLog = holder === 'claude1' ? log1 : log2;
    await waitFor("the topic in the holder's pane", () =>
      readRecorder(holderLog).pastes.some(
        (t) => t.includes('Plan the next release') && t.includes('a person set this topic'),
      ),
    );
    const user = page.locator('#m-user_0001');
    await user.waitFor();
    expect(await user.locator('.content').textContent()).toBe('Plan the next release');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('#m-msg_0004, #m-msg_0005').first().waitFor({ timeout: 20_000 });
    await p.cli(['pause']);
  });
  it('fits at 1280 and 420 px: no pane clipped, the topic placeholder whole, each fact beside its label', async () => {
    const p = project();
    await p.recorder('claude1');
    const log2 = await p.recorder('claude2', { flags: ['--echo'] });
    await p.startDaemon();
    const { page } = await open((await ui(p)).url);
    // A line as wide as the pane (80 columns, echoed), wider than the side column at 11 px monospace.
    p.send('c1_to_c2', '001.json', { content: `wide ${'0123456789'.repeat(8)}` });
    await waitFor('the wide line in claude2', () => readRecorder(log2).pastes.some((t) => t.includes('0123456789')));
    for (const width of [1280, 420]) {
      await page.setViewportSize({ width, height: 800 });
      await page.locator('[data-agent="claude2"] .screen', { hasText: '0123456789' }).waitFor({ timeout: 15_000 });
      const fit = await page.evaluate(() => {
        const input = document.querySelector<HTMLInputElement>('#start-topic')!;
        const style = getComputedStyle(input);
        const ctx = document.createElement('canvas').getContext('2d')!;
        ctx.font = `${style.fontSize} ${style.fontFamily}`;
        const room = input.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
        const facts = [...document.querySelectorAll('#facts dt')].map((dt) => ({
          label: dt.textContent,
          apart: Math.abs(dt.getBoundingClientRect().top - dt.nextElementSibling!.getBoundingClientRect().top) > 2,
        }));
        const top = (sel: string) => document.querySelector(sel)!.getBoundingClientRect().top;
        return {
          placeholder: ctx.measureText(input.placeholder).width <= room,
          clipped: [...document.querySelectorAll('.screen')].filter((e) => e.scrollWidth > e.clientWidth + 1).length,
          page: document.documentElement.scrollWidth <= document.documentElement.clientWidth,
          apart: facts.filter((f) => f.apart).map((f) => f.label),
          // The name, the live badge and the link share the first line; the facts are below it.
          headLine: Math.abs(top('h1') - top('#live')) < 12 && Math.abs(top('h1') - top('#all-link')) < 12,
        };
      });
      expect(fit, `${width} px`).toEqual({ placeholder: true, clipped: 0, page: true, apart: [], headLine: true });
      await page.screenshot({ path: join(SHOTS, `ui-dashboard-${width}.png`) });
    }
  });
});
