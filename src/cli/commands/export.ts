import { UsageError, type CommandSpec } from '../command.js';

const FORMATS = ['md', 'html', 'jsonl'] as const;

export const exportCommand: CommandSpec = {
  usage: 'export [--md | --html | --jsonl] [FILE]',
  summary: 'the whole conversation as one file to read or share: messages, catch-ups, notes, the outcome',
  reads: true,
  options: { md: { type: 'boolean' }, html: { type: 'boolean' }, jsonl: { type: 'boolean' } },
  examples: ['baton export > talk.md', 'baton export --html talk.html', 'baton export --jsonl | jq .kind'],
  help: `
Writes the whole conversation as one self-contained document: each message with sender → receiver, when
it was written and typed, its receipt, its turn's tokens and cost; the catch-up each agent was given with a
message (what the others said since its last turn); a person's messages and notes; a person's answers to
the agents' dialogs; and the outcome (turns.closing). Read from the bus, so it works with no daemon running.

  --md       Markdown (the default)
  --html     one HTML page with its style inline: no script, no request outside the file; opens offline
  --jsonl    one JSON object per line: the conversation, then each record (with its catch_up), each answer
  FILE       write it there (replaced whole); without it, to standard output`,
  async run(inv) {
    const v = inv.values as Record<(typeof FORMATS)[number], boolean | undefined>;
    const chosen = FORMATS.filter((f) => v[f]);
    if (chosen.length > 1) throw new UsageError(`choose one of ${chosen.map((f) => `--${f}`).join(' and ')}`);
    const [file, ...rest] = inv.positionals;
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}" (one FILE at most)`);
    const format = chosen[0] ?? 'md';
    const { gatherExport } = await import('../../app/export/gather.js');
    const { openBus } = await import('../../bus/open.js');
    const config = (await import('../inputs.js')).configFrom(inv);
    const doc = await gatherExport(openBus(config), config, new Date());
    let text: string;
    if (format === 'html') text = (await import('../../app/export/html.js')).exportHtml(doc);
    else {
      const { exportJsonl, exportMarkdown } = await import('../../app/export/markdown.js');
      text = format === 'jsonl' ? exportJsonl(doc) : exportMarkdown(doc);
    }
    if (!file) {
      process.stdout.write(text);
      return 0;
    }
    const { writeAtomic } = await import('../../lib/fsx.js');
    try {
      await writeAtomic(file, text);
    } catch (err) {
      process.stderr.write(`baton export: cannot write ${file}: ${(err as Error).message}\n`);
      return 2;
    }
    process.stderr.write(`baton export: ${doc.records.length} records written to ${file} (${format})\n`);
    return 0;
  },
};
