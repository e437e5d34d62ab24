import { open, readdir, stat } from 'node:fs/promises';
import { byDelivery, isRecordName, readRecord, type ArchiveRecord } from '../archive.js';
import type { Config } from '../config.js';
import { followFile } from '../follow.js';
import { layout } from '../layout.js';
import { configFrom, noPositionals, UsageError, type CommandSpec } from './common.js';

/** Every archived record (agent messages and a person's), in the order they reached the panes. */
export async function transcript(config: Config): Promise<ArchiveRecord[]> {
  const dir = layout(config).archive;
  const names = (await readdir(dir).catch(() => [] as string[])).filter(isRecordName);
  const records = (await Promise.all(names.map((n) => readRecord(dir, n.slice(0, -5))))).filter((r): r is ArchiveRecord => r !== null);
  return records.sort(byDelivery);
}

const time = (iso: string | null) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : 'not typed yet');

export function formatText(r: ArchiveRecord): string {
  const head = [r.id, `${r.sender} → ${r.receiver}`, time(r.delivered_at)];
  if (r.reply_to) head.push(`reply to ${r.reply_to}`);
  if (r.type !== 'message') head.push(`[${r.type}]`);
  if (r.subject) head.push(`— ${r.subject}`);
  if (r.redelivered) head.push('(redelivered)');
  return `${head.join('  ')}\n${r.content.replace(/^/gm, '    ')}\n`;
}

export function formatMarkdown(records: ArchiveRecord[], config: Config): string {
  const out = [`# baton conversation`, '', `${records.length} messages · policy ${config.turns.policy} · ${config.order.join(', ')} · exported ${new Date().toISOString()}`, ''];
  for (const r of records) {
    const meta = [`**${r.sender}** → ${r.receiver}`, time(r.delivered_at)];
    if (r.reply_to) meta.push(`reply to [${r.reply_to}](#${r.reply_to})`);
    if (r.type !== 'message') meta.push(r.type);
    if (r.redelivered) meta.push('redelivered');
    out.push(`### ${r.id}${r.subject ? ` — ${r.subject.replace(/\n/g, ' ')}` : ''}`, '', meta.join(' · '), '', r.content.trimEnd(), '');
  }
  return `${out.join('\n')}`;
}

export const log: CommandSpec = {
  usage: 'log [--follow | -f] [--json | --md]',
  summary: 'the conversation from the archive: who said what, in order',
  options: { follow: { type: 'boolean', short: 'f' }, json: { type: 'boolean' }, md: { type: 'boolean' } },
  examples: ['baton log', 'baton log --follow', 'baton log --md > talk.md'],
  help: `
Prints every archived message (agents' msg_NNNN and a person's user_NNNN) in the order they were
typed: ID, sender → receiver, time, reply_to, then the content.

  --follow, -f   keep printing messages as they are delivered (Ctrl-C stops)
  --json         one archive record per line (JSONL), as stored
  --md           a Markdown transcript to share (redirect it: baton log --md > talk.md)`,
  async run(inv) {
    noPositionals(inv);
    const v = inv.values as { follow?: boolean; json?: boolean; md?: boolean };
    if (v.json && v.md) throw new UsageError('choose one of --json and --md');
    if (v.md && v.follow) throw new UsageError('--md writes a whole transcript; it cannot --follow');
    const config = configFrom(inv);
    // Where events.jsonl ends before the archive is read: whatever is delivered from here on is followed.
    const from = v.follow ? await stat(layout(config).events).then((st) => st.size, () => 0) : 0;
    const records = await transcript(config);
    if (v.md) {
      process.stdout.write(formatMarkdown(records, config));
      return 0;
    }
    const print = (r: ArchiveRecord) => process.stdout.write(v.json ? `${JSON.stringify(r)}\n` : formatText(r));
    const shown = new Set<string>();
    for (const r of records) {
      if (v.follow && !r.delivered_at) continue; // printed once it is typed
      print(r);
      shown.add(r.id);
    }
    if (!v.follow) return 0;
    return follow(config, from, shown, print);
  },
};

/**
 * Print each record once it is delivered, by following events.jsonl (its `delivered` and `sent` lines)
 * from byte `from`: one small file to watch, however long the archive. Resolves 0 on SIGINT/SIGTERM.
 */
async function follow(config: Config, from: number, shown: Set<string>, print: (r: ArchiveRecord) => void): Promise<number> {
  const l = layout(config);
  let offset = from;
  let partial = '';
  const readNew = async () => {
    const size = await stat(l.events).then((st) => st.size, () => 0);
    if (size < offset) offset = 0; // truncated or replaced: read it from the start (shown keeps out repeats)
    if (size === offset) return;
    const fh = await open(l.events, 'r');
    try {
      const buf = Buffer.alloc(size - offset);
      const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
      offset += bytesRead;
      partial += buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fh.close();
    }
    const lines = partial.split('\n');
    partial = lines.pop() ?? ''; // a line still being written
    for (const line of lines) {
      let e: { event?: string; id?: string };
      try {
        e = JSON.parse(line) as typeof e;
      } catch {
        continue;
      }
      if ((e.event !== 'delivered' && e.event !== 'sent') || !e.id || shown.has(e.id)) continue;
      const r = await readRecord(l.archive, e.id).catch(() => null);
      if (!r?.delivered_at) continue;
      shown.add(r.id);
      print(r);
    }
  };
  let chain = Promise.resolve();
  const follower = followFile(l.events, () => {
    chain = chain.then(readNew).catch(() => {});
  });
  chain = chain.then(readNew).catch(() => {}); // what came between reading the archive and now
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  follower.close();
  await chain;
  return 0;
}
