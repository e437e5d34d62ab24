import type { Archive, EventFeed } from '../../bus/bus.js';
import type { ArchiveRecord } from '../../core/record.js';
import { type CommandSpec, noPositionals, UsageError, untilStopped } from '../command.js';

export const log: CommandSpec = {
  usage: 'log [--follow | -f] [--json | --md]',
  summary: 'the conversation from the archive: who said what, in order',
  reads: true,
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
    const { formatMarkdown, formatText, transcript } = await import('../../app/transcript.js');
    const { NO_LOG } = await import('../../bus/events.js');
    const { openBus } = await import('../../bus/open.js');
    const config = (await import('../inputs.js')).configFrom(inv);
    const bus = openBus(config);
    // Where the events end before the archive is read: whatever is delivered from here on is followed.
    const from = v.follow ? await bus.events.head() : { gen: NO_LOG, end: 0 };
    const records = await transcript(bus);
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
    return follow(bus, from, shown, print);
  },
};

/**
 * Print each record once it is delivered, by following the events (their `delivered` and `sent` ones)
 * from `from`: one small log to follow, however long the archive. Resolves 0 on SIGINT/SIGTERM.
 */
async function follow(
  bus: EventFeed & Archive,
  from: { gen: string; end: number },
  shown: Set<string>,
  print: (r: ArchiveRecord) => void,
): Promise<number> {
  const { LogReplaced } = await import('../../bus/events.js');
  let { gen, end: offset } = from;
  let skipping = false;
  const readNew = async () => {
    const head = await bus.events.head();
    // Replaced (up --fresh), or shorter than where we were: read it from its start (`shown` keeps out repeats).
    if (head.gen !== gen || head.end < offset) [gen, offset, skipping] = [head.gen, 0, false];
    const delivered: string[] = [];
    const collect = (e: Record<string, unknown>) => {
      if ((e.event === 'delivered' || e.event === 'sent') && typeof e.id === 'string') delivered.push(e.id);
    };
    try {
      const r = await bus.events.read(gen, offset, head.end, collect, { skipping });
      [offset, skipping] = [r.last, r.skipping];
    } catch (err) {
      if (!(err instanceof LogReplaced)) throw err;
      return; // replaced between the look and the read: the next look reads the new one
    }
    for (const id of delivered) {
      if (shown.has(id)) continue;
      const r = await bus.record(id).catch(() => null);
      if (!r?.delivered_at) continue;
      shown.add(r.id);
      print(r);
    }
  };
  let chain = Promise.resolve();
  const follower = bus.events.follow(() => {
    chain = chain.then(readNew).catch(() => {});
  });
  chain = chain.then(readNew).catch(() => {}); // what came between reading the archive and now
  await untilStopped();
  follower.close();
  await chain;
  return 0;
}
