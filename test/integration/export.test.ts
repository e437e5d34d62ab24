/**
 * `baton export` (docs/protocol.md §12) of a three-agent conversation run by the real daemon on a private
 * tmux server: every message, the catch-up each agent was given (the same text its pane read), a person's
 * note, in Markdown, a self-contained HTML page and JSONL; to a file or a closed pipe; errors exit 2.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CATCH_UP_OPENER } from '../../src/core/compose.js';
import { CLI, Project, readRecorder, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

describe('baton export', () => {
  it('a three-agent conversation: every message, each catch-up as typed, the note; md, html and jsonl', async () => {
    p = new Project({
      agents: {
        a: { kind: 'generic', command: 'x' },
        b: { kind: 'generic', command: 'x' },
        c: { kind: 'generic', command: 'x' },
      },
      directions: undefined,
      turns: { policy: 'round_robin' },
      delivery: { enter_delay_ms: 0 },
    });
    const q = p;
    const logs = { a: await q.recorder('a'), b: await q.recorder('b'), c: await q.recorder('c') };
    await q.startDaemon();
    const lines = [
      'a opens: <script>alert(1)</script> & "quotes"',
      'b answers with `code`',
      'c adds a third view',
      'a wraps up',
    ];
    const from = ['a', 'b', 'c', 'a'];
    for (const [i, content] of lines.entries()) {
      const me = from[i]!;
      const post = await q.cli(['post', '--as', me, content]);
      expect(post.exitCode, post.stderr).toBe(0);
      await waitFor(`msg ${i + 1}`, () => q.archive()[i]?.delivered_at);
      if (i === 1) {
        const note = await q.cli(['send', '--to', 'all', 'a note to everyone: keep it short']);
        expect(note.exitCode, note.stderr).toBe(0);
      }
    }
    // msg_0004 gives b the turn back: its pane read what c said meanwhile (and the note) before it.
    await waitFor('b read msg_0004', () => readRecorder(logs.b).pastes.some((t) => t.includes('msg_0004')));
    const typed = readRecorder(logs.b).pastes.find((t) => t.includes('msg_0004'))!;
    expect(typed).toContain(CATCH_UP_OPENER);

    const md = await q.cli(['export']);
    expect(md.exitCode, md.stderr).toBe(0);
    for (const id of ['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004', 'user_0001'])
      expect(md.stdout).toContain(`### ${id}`);
    expect(md.stdout).toContain('user → every agent (a note)');
    expect(md.stdout).toContain('What b was given first (its catch-up):');
    // The catch-up in the export is the one the pane read, line for line.
    const block = typed.slice(typed.indexOf(CATCH_UP_OPENER), typed.indexOf('[baton] the message to you'));
    for (const line of block.trim().split('\n')) expect(md.stdout).toContain(line);

    const file = join(q.dir, 'out', 'talk.html');
    mkdirSync(join(q.dir, 'out'));
    const html = await q.cli(['export', '--html', file]);
    expect(html.exitCode, html.stderr).toBe(0);
    const page = readFileSync(file, 'utf8');
    expect(page.startsWith('<!doctype html>')).toBe(true);
    for (const id of ['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004', 'user_0001'])
      expect(page).toContain(`id="${id}"`);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
    expect(page).toContain('its catch-up');
    // Self-contained: no script, no stylesheet or image to fetch, no link out of the page.
    expect(page).not.toMatch(/<script|<link|<img|src=|url\(|@import|href="(?!#)/i);

    const jsonl = await q.cli(['export', '--jsonl']);
    const objs = jsonl.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objs[0]).toMatchObject({ kind: 'conversation', policy: 'round_robin', agents: ['a', 'b', 'c'] });
    expect(objs.filter((o) => o.kind === 'record').map((o) => o.id)).toEqual([
      'msg_0001',
      'msg_0002',
      'user_0001',
      'msg_0003',
      'msg_0004',
    ]);
    expect(objs.find((o) => o.id === 'msg_0004')?.catch_up).toContain(CATCH_UP_OPENER);
  }, 90_000);

  it('errors exit 2 in one line; a closed pipe ends it quietly with exit 0', async () => {
    p = new Project();
    const q = p;
    mkdirSync(q.path('archive'), { recursive: true });
    for (let i = 1; i <= 200; i++) {
      const id = `msg_${String(i).padStart(4, '0')}`;
      writeFileSync(
        q.path('archive', `${id}.json`),
        JSON.stringify({
          id,
          reply_to: null,
          sender: i % 2 ? 'claude1' : 'claude2',
          receiver: i % 2 ? 'claude2' : 'claude1',
          type: 'message',
          content: `${i} ${'y'.repeat(1000)}`,
          direction: i % 2 ? 'c1_to_c2' : 'c2_to_c1',
          source_file: 'f.json',
          received_at: '2026-01-01T00:00:00.000Z',
          delivered_at: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
        }),
      );
    }
    // A person's answer to a dialog, as the daemon logs it: in the export.
    writeFileSync(
      q.path('events.jsonl'),
      `${JSON.stringify({ ts: '2026-01-01T00:01:00.000Z', event: 'answered', agent: 'claude1', choice: 'Yes', by: 'ann' })}\n`,
    );
    const withAnswer = await q.cli(['export']);
    expect(withAnswer.stdout).toContain('- 2026-01-01 00:01:00Z · claude1: "Yes" (by ann)');
    const both = await q.cli(['export', '--md', '--html']);
    expect([both.exitCode, both.stderr.split('\n')[0]]).toEqual([2, 'baton export: choose one of --md and --html']);
    const nowhere = await q.cli(['export', join(q.dir, 'no', 'such', 'dir', 'x.md')]);
    expect(nowhere.exitCode).toBe(2);
    expect(nowhere.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(q.dir, 'no'))).toBe(false);
    for (const fmt of ['--md', '--html', '--jsonl']) {
      const r = await execa(
        'bash',
        [
          '-c',
          `node "$0" "$@" --config "${q.configFile}" | head -1 >/dev/null; echo "exit=\${PIPESTATUS[0]}"`,
          CLI,
          'export',
          fmt,
        ],
        { env: q.env, reject: false, cwd: q.dir },
      );
      expect(r.stdout.trim(), `${fmt}: ${r.stderr}`).toBe('exit=0');
      expect(r.stderr, fmt).toBe('');
    }
  }, 60_000);
});
