/**
 * `baton ui`'s overview in a real browser: three conversations handed to one machine daemon (`baton up` in
 * each of three projects, each on its own tmux server), messages flowing in two of them at once. The
 * overview lists each and follows their turns and message counts without a reload; a row leads to that
 * conversation's view, live under its /c/<id>/ prefix; a conversation taken back (`baton down`) leaves.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Project, readRecorder, waitFor } from '../helpers/harness.js';
import { recorderConversation } from '../helpers/machine-fleet.js';
import { launchBrowser, SHOTS, startUi } from '../helpers/ui.js';

let browser: Browser;
const made: Project[] = [];
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  // The machine's daemon runs on the first project's tmux server: that one goes last.
  for (const p of made.splice(0).reverse()) await p.stop();
});

/** A conversation of two recorder panes, handed to the machine's daemon by `baton up`. */
async function conversation(tag: string, state?: Project) {
  const c = await recorderConversation(tag, made, state);
  const up = await c.p.cli(['up']);
  expect(up.exitCode, up.stderr + up.stdout).toBe(0);
  return c;
}

const row = (page: Page, p: Project) => page.locator('#rows tr', { has: page.locator(`a:text-is("${p.dir}")`) });
const cell = (page: Page, p: Project, col: string) => row(page, p).locator(`td[data-col="${col}"]`);

describe('baton ui: every conversation', () => {
  it('lists three conversations live while two of them talk at once, and leads to each one', async () => {
    const a = await conversation('oa');
    const b = await conversation('ob', a.p);
    const c = await conversation('oc', a.p);
    const u = await startUi(a.p, ['--all']);
    cleanups.push(() => u.stop());

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    cleanups.push(() => context.close());
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(u.url);
    await page.locator('#live', { hasText: /^live$/ }).waitFor();
    // expect.poll's own timeout is 1 s: the listing comes with the overview's first refresh, which under load
    // (2 cores, other suites running) took longer than that, and the listing was asserted empty.
    await expect
      .poll(() => page.locator('#rows tr a').allTextContents(), { timeout: 30_000 })
      .toEqual([a.p.dir, b.p.dir, c.p.dir]);
    for (const x of [a, b, c]) {
      await cell(page, x.p, 'state').locator('text=running').waitFor({ timeout: 20_000 });
      expect(await cell(page, x.p, 'messages').textContent()).toBe('0');
      expect(await cell(page, x.p, 'policy').textContent()).toBe('alternate');
    }
    // A mark the page keeps only if it is never reloaded.
    await page.evaluate(() => ((window as unknown as { __kept: number }).__kept = 1));

    // Two conversations talk at once: A three turns, B two, C nothing.
    a.p.send('c1_to_c2', 'a1.json', { content: 'first in A' });
    b.p.send('c1_to_c2', 'b1.json', { content: 'first in B' });
    await cell(page, a.p, 'messages').locator('text="1"').waitFor();
    await cell(page, b.p, 'messages').locator('text="1"').waitFor();
    expect(await cell(page, a.p, 'turn').textContent()).toBe('claude2');
    expect(await cell(page, b.p, 'turn').textContent()).toBe('claude2');
    a.p.send('c2_to_c1', 'a2.json', { content: 'second in A', reply_to: 'msg_0001' });
    b.p.send('c2_to_c1', 'b2.json', { content: 'second in B', reply_to: 'msg_0001' });
    await waitFor('A2 typed', () => readRecorder(a.logs.claude1).typed.some((t) => t.includes('second in A')));
    a.p.send('c1_to_c2', 'a3.json', { content: 'third in A', reply_to: 'msg_0002' });
    await cell(page, a.p, 'messages').locator('text="3"').waitFor();
    await cell(page, b.p, 'messages').locator('text="2"').waitFor();
    expect(await cell(page, a.p, 'turn').textContent()).toBe('claude2');
    expect(await cell(page, b.p, 'turn').textContent()).toBe('claude1');
    expect(await cell(page, c.p, 'messages').textContent()).toBe('0');
    expect(await cell(page, c.p, 'turn').textContent()).toBe('claude1');
    expect(await page.evaluate(() => (window as unknown as { __kept?: number }).__kept)).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'ui-overview.png') });

    // B's row leads to B's view, its transcript under /c/<id>/, live.
    await row(page, b.p).locator('a').click();
    await page.waitForURL(/\/c\/[0-9a-f]{12}\/$/);
    await page.locator('#live', { hasText: /^live$/ }).waitFor();
    await page.locator('#m-msg_0001 .content', { hasText: 'first in B' }).waitFor();
    await page.locator('#m-msg_0002 .content', { hasText: 'second in B' }).waitFor();
    b.p.send('c1_to_c2', 'b3.json', { content: 'third in B', reply_to: 'msg_0002' });
    await page.locator('#m-msg_0003 .content', { hasText: 'third in B' }).waitFor();
    expect(
      await page.locator('#transcript > li').evaluateAll((li) => li.map((e) => (e as HTMLElement).dataset.id)),
    ).toEqual(['msg_0001', 'msg_0002', 'msg_0003']);
    // Its controls work under the prefix: a message as user reaches B's pane, not A's.
    await page.locator('#send-to').selectOption('claude1');
    await page.locator('#send-text').fill('from the overview, to B');
    await page.locator('#send').click();
    await page.locator('#result.ok', { hasText: 'user_0001 typed into claude1' }).waitFor();
    await waitFor('typed into B', () =>
      readRecorder(b.logs.claude1).pastes.some((t) => t.includes('from the overview, to B')),
    );
    expect(readRecorder(a.logs.claude1).pastes.some((t) => t.includes('from the overview, to B'))).toBe(false);

    // Back to the overview; A's row leads to A's transcript.
    await page.locator('#all-link').click();
    await page.waitForURL(/\/all$/);
    await cell(page, b.p, 'messages').locator('text="3"').waitFor();
    await row(page, a.p).locator('a').click();
    await page.locator('#m-msg_0003 .content', { hasText: 'third in A' }).waitFor();
    expect(await page.locator('#transcript > li').count()).toBe(3);

    // C taken back: its row leaves the overview without a reload.
    await page.goBack();
    await page.locator('#live', { hasText: /^live$/ }).waitFor();
    await page.evaluate(() => ((window as unknown as { __kept: number }).__kept = 2));
    const down = await c.p.cli(['down']);
    expect(down.exitCode, down.stderr).toBe(0);
    await expect
      .poll(() => page.locator('#rows tr a').allTextContents(), { timeout: 15_000 })
      .toEqual([a.p.dir, b.p.dir]);
    expect(await page.evaluate(() => (window as unknown as { __kept?: number }).__kept)).toBe(2);
    expect(errors).toEqual([]);
  }, 180_000);
});
