/**
 * The dashboard's feed on its own (no HTTP, no browser): what reaches a tab when events.jsonl is
 * replaced in the middle of a replay, or holds a line too long to be the daemon's.
 */
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { openBus } from '../../src/bus/open.js';
import { Feed, parseCursor } from '../../src/ui/feed.js';
import { waitFor } from '../helpers/harness.js';

const saved = {
  TMUX_TMPDIR: process.env.TMUX_TMPDIR,
  TMUX: process.env.TMUX,
  BATON_TMUX_SOCKET: process.env.BATON_TMUX_SOCKET,
};
const dirs: string[] = [];
const feeds: Feed[] = [];

// The feed asks tmux about panes: point it at a private (empty) server, never the user's.
beforeAll(() => {
  const t = mkdtempSync(join(tmpdir(), 'baton-feed-tmux-'));
  dirs.push(t);
  Object.assign(process.env, { TMUX_TMPDIR: t, TMUX: '', BATON_TMUX_SOCKET: '' });
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
afterEach(async () => {
  for (const f of feeds.splice(0)) await f.close();
});

/** A conversation folder whose events.jsonl holds `lines` lines of `event`. */
function setup(lines: number, event = 'held'): { events: string; feed: Feed } {
  const dir = mkdtempSync(join(tmpdir(), 'baton-feed-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'messages', 'archive'), { recursive: true });
  const events = join(dir, 'messages', 'events.jsonl');
  const body = Array.from(
    { length: lines },
    (_, i) => `${JSON.stringify({ event, id: `msg_${String(i + 1).padStart(4, '0')}`, file: `f${i}.json` })}\n`,
  ).join('');
  writeFileSync(events, body);
  const config = parseConfig(
    { agents: { a: { kind: 'generic', command: 'x' }, b: { kind: 'generic', command: 'x' } } },
    join(dir, 'config.json'),
    dir,
  );
  const feed = new Feed(config, openBus(config), { statusEveryMs: 1e9, screensEveryMs: 1e9 });
  feeds.push(feed);
  return { events, feed };
}

const idsOf = (chunks: string[]) =>
  chunks.flatMap((c) => {
    const id = /^id: (.*)$/m.exec(c)?.[1];
    const event = /^event: (.*)$/m.exec(c)?.[1];
    return event ? [{ event, cursor: id ? parseCursor(id) : null, c }] : [];
  });

describe('the dashboard feed', () => {
  it('a replay cut short by a replaced log labels each line with the log it came from, then resets', async () => {
    // Deliveries: each line's message is looked up in the archive while it is replayed (real I/O per line),
    // so the feed's own look at the log — which finds it replaced — runs in the middle of the replay.
    const { events, feed } = setup(5000, 'delivered');
    await feed.start();
    const old = parseCursor(feed.cursor)!;
    const got: string[] = [];
    let n = 0;
    await feed.subscribe((chunk) => {
      got.push(chunk);
      if (++n === 100) {
        renameSync(events, `${events}.old`);
        writeFileSync(events, `${JSON.stringify({ event: 'started', note: 'the new log' })}\n`);
      }
      return true;
    }, `${old.gen}:0`);
    await waitFor('the reset', () => got.some((c) => c.startsWith('event: reset')), 10_000);
    const seen = idsOf(got);
    const reset = seen.findIndex((s) => s.event === 'reset');
    const before = seen.slice(0, reset).filter((s) => s.event === 'baton');
    // Every line of the old log went out once, labelled with the old log, offsets rising to its end.
    expect(before).toHaveLength(5000);
    expect(before.every((s) => s.cursor?.gen === old.gen)).toBe(true);
    const offsets = before.map((s) => s.cursor!.offset);
    expect(offsets.every((o, i) => i === 0 || o > offsets[i - 1]!)).toBe(true);
    expect(offsets.at(-1)).toBe(old.offset);
    // What comes after the reset is from the new log only.
    const now = parseCursor(feed.cursor)!;
    expect(now.gen).not.toBe(old.gen);
    expect(
      seen
        .slice(reset + 1)
        .filter((s) => s.event === 'baton')
        .every((s) => s.cursor?.gen === now.gen),
    ).toBe(true);
  });

  it('skips a line too long to be the daemon’s, even when it arrives in pieces', async () => {
    const { events, feed } = setup(1);
    await feed.start();
    const got: string[] = [];
    await feed.subscribe((chunk) => {
      got.push(chunk);
      return true;
    }, undefined);
    // 1.5 MiB: read as 1 MiB and then the rest, so the feed's look ends exactly where the line was cut.
    appendFileSync(events, `{"event":"junk","pad":"${'y'.repeat(1.5 * 1024 * 1024)}`);
    await new Promise((r) => setTimeout(r, 600)); // the feed looks at the unfinished line
    // The rest of that line looks like an event of its own: it is still the long line, and skipped.
    appendFileSync(events, `{"event":"forged"}\n{"event":"real"}\n`);
    await waitFor('the next real line', () => got.some((c) => c.includes('"event":"real"')), 10_000);
    const names = idsOf(got)
      .filter((s) => s.event === 'baton')
      .map((s) => (JSON.parse(/^data: (.*)$/m.exec(s.c)![1]!) as { e: { event: string } }).e.event);
    expect(names).toEqual(['real']);
  });
});
