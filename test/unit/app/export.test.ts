import { describe, expect, it } from 'vitest';
import type { ExportDoc } from '../../../src/app/export/gather.js';
import { exportHtml } from '../../../src/app/export/html.js';
import { exportJsonl, exportMarkdown } from '../../../src/app/export/markdown.js';
import type { ArchiveRecord } from '../../../src/core/record.js';

const rec = (id: string, content: string, extra: Partial<ArchiveRecord> = {}): ArchiveRecord =>
  ({
    id,
    reply_to: null,
    sender: 'a',
    receiver: 'b',
    type: 'message',
    content,
    direction: 'a_to_b',
    source_file: 'f.json',
    received_at: '2026-11-28T12:00:00.000Z',
    delivered_at: '2026-11-28T12:00:01.000Z',
    ...extra,
  }) as ArchiveRecord;

const doc = (records: ArchiveRecord[], more: Partial<ExportDoc> = {}): ExportDoc => ({
  where: '/p/messages',
  policy: 'alternate',
  agents: ['a', 'b'],
  exported_at: '2026-11-28T13:00:00.000Z',
  state: null,
  records,
  catch_ups: {},
  answers: [],
  outcome: null,
  ...more,
});

describe('export renderers', () => {
  it('Markdown: a content with a fence inside cannot close its block; tokens, cost and receipt are said', () => {
    const r = rec('msg_0001', 'see:\n```\ncode\n```\nend', {
      received: { at: '2026-11-28T12:00:02.000Z', intact: true } as ArchiveRecord['received'],
      turn_tokens: { input: 10, output: 5, cache_read: 100, cache_creation: 0 },
      cost_usd: 0.0123,
    } as Partial<ArchiveRecord>);
    const md = exportMarkdown(doc([r]));
    expect(md).toContain('````text\nsee:\n```\ncode\n```\nend\n````');
    expect(md).toContain('received by its model 2026-11-28 12:00:02Z');
    expect(md).toContain('its turn: 10 in, 5 out, 100 cache tokens');
    expect(md).toContain('$0.0123');
  });
  it('HTML escapes every agent string, even in the catch-up and the outcome', () => {
    const evil = '<img src=x onerror=alert(1)>';
    const r = rec('msg_0002', evil, { type: 'outcome', subject: evil, receiver: 'b' });
    const html = exportHtml(doc([r], { catch_ups: { msg_0002: evil }, outcome: r, where: evil }));
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
  it('JSONL: the conversation, then records with their catch-up, then answers', () => {
    const lines = exportJsonl(
      doc([rec('msg_0001', 'hi')], {
        catch_ups: { msg_0001: 'missed' },
        answers: [{ ts: 't', agent: 'a', choice: 'Yes', by: 'ann' }],
      }),
    )
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.kind)).toEqual(['conversation', 'record', 'answer']);
    expect(lines[1]).toMatchObject({ id: 'msg_0001', catch_up: 'missed' });
  });
});
