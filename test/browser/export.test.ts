/**
 * `baton export --html` in a real browser (Debian's Chromium): a three-agent conversation's page opens from
 * the file, offline, with every message and the catch-up each agent was given, and asks for nothing outside
 * itself; the dashboard's Export link downloads the same page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Project, waitFor } from '../helpers/harness.js';
import { launchBrowser, SHOTS, startUi } from '../helpers/ui.js';

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

describe('the exported page', () => {
  it('opens offline with every message and catch-up; the dashboard link downloads it', async () => {
    const p = new Project({
      agents: {
        a: { kind: 'generic', command: 'x' },
        b: { kind: 'generic', command: 'x' },
        c: { kind: 'generic', command: 'x' },
      },
      directions: undefined,
      turns: { policy: 'round_robin' },
      delivery: { enter_delay_ms: 0 },
    });
    cleanups.push(() => p.stop());
    for (const a of ['a', 'b', 'c']) await p.recorder(a);
    await p.startDaemon();
    for (const [i, [me, text]] of [
      ['a', 'a: the plan, <b>not bold</b>'],
      ['b', 'b: agreed on step one'],
      ['c', 'c: step two needs a test'],
      ['a', 'a: both done'],
      ['b', 'b: reviewed'],
    ].entries()) {
      expect((await p.cli(['post', '--as', me!, text!])).exitCode).toBe(0);
      await waitFor(`msg ${i + 1}`, () => p.archive()[i]?.delivered_at);
    }
    const file = join(p.dir, 'talk.html');
    expect((await p.cli(['export', '--html', file])).exitCode).toBe(0);

    const context = await browser.newContext({ offline: true, acceptDownloads: true });
    cleanups.push(() => context.close());
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`file://${file}`);
    const ids = await page.locator('article').evaluateAll((els) => els.map((e) => e.id));
    expect(ids).toEqual(['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004', 'msg_0005']);
    await expect(page.locator('#msg_0001 pre.content').textContent()).resolves.toBe('a: the plan, <b>not bold</b>');
    // With three agents, msg_0004 (to b) and msg_0005 (to c) came with what each missed.
    const catchUps = await page.locator('article:has(details.catch-up)').evaluateAll((els) => els.map((e) => e.id));
    expect(catchUps).toEqual(expect.arrayContaining(['msg_0004', 'msg_0005']));
    await page.locator('#msg_0004 details.catch-up summary').click();
    await expect(page.locator('#msg_0004 details.catch-up pre').isVisible()).resolves.toBe(true);
    await expect(page.locator('#msg_0004 details.catch-up pre').textContent()).resolves.toContain(
      'c: step two needs a test',
    );
    await page.screenshot({ path: join(SHOTS, 'export.png'), fullPage: true });
    expect(requests).toEqual([`file://${file}`]);

    const u = await startUi(p);
    cleanups.push(() => u.stop());
    const dash = await context.newPage();
    await context.setOffline(false);
    await dash.goto(u.url);
    const [download] = await Promise.all([dash.waitForEvent('download'), dash.locator('#export-link').click()]);
    const got = readFileSync((await download.path())!, 'utf8');
    expect(got).toContain('id="msg_0005"');
    expect(got).toContain('class="catch-up"');
  }, 120_000);
});
