import { recordIdsOf } from '../../core/ids.js';
import type { ArchiveRecord } from '../../core/record.js';
import { UsageError, type CommandSpec } from '../command.js';

/** One record as text: who sent it to whom, when, what it replies to; then its content exactly as written. */
function asText(r: ArchiveRecord): string {
  const head = [
    r.id,
    `${r.sender} → ${r.receiver}`,
    r.delivered_at ?? 'being delivered',
    ...(r.reply_to ? [`reply to ${r.reply_to}`] : []),
    ...(r.type !== 'message' ? [`[${r.type}]`] : []),
    ...(r.subject ? [`— ${r.subject}`] : []),
  ];
  return `${head.join('  ')}\n${r.content}${r.content.endsWith('\n') ? '' : '\n'}`;
}

export const show: CommandSpec = {
  usage: 'show ID|ID..ID [--json]',
  summary: 'a message in full (or a range of them): how an agent reads what baton only names in its pane',
  reads: true,
  options: { json: { type: 'boolean' } },
  examples: [
    'baton show msg_0007',
    'baton show 7',
    'baton show msg_0004..msg_0009',
    'baton show msg_0007 --json | jq -r .content',
  ],
  help: `
Prints the archived message ID (msg_NNNN, or a person's user_NNNN): one line with who sent it to whom,
when, and what it replies to, then its content exactly as written. A shell-kind agent's pane gets only a
comment line naming the message (a shell would run its content), and a catch-up (what the others said
since an agent's last turn) may shorten a message or name earlier ones: this is how an agent reads them.
On the PostgreSQL bus an agent's pane has no database access: there it reads the copies its machine's
daemon keeps, in message_dir/.shown/, of every message it named to a pane of this machine.

  ID        msg_0007, msg_7 or 7 (an agent's message), user_0001 or user_1 (a person's)
  ID..ID    a range, in order: msg_0004..msg_0009 (or 4..9); IDs not in the archive are named on stderr
  --json    the archive record as stored (a range: one record per line)`,
  async run(inv) {
    const [arg, ...rest] = inv.positionals;
    if (!arg || rest.length) throw new UsageError('name one message ID, like msg_0007, or a range msg_0004..msg_0009');
    const parsed = recordIdsOf(arg);
    if (!parsed.ok) throw new UsageError(parsed.why);
    const { explainBusError, openBus } = await import('../../bus/open.js');
    const { readShown, shownDir } = await import('../../daemon/shown.js');
    // an agent's pane has no database URL
    const config = (await import('../inputs.js')).configFrom(inv, { busUrl: 'optional' });
    const bus = openBus(config);
    // An agent's pane on the PostgreSQL bus cannot read the database (docs/trust.md): it reads the copies its
    // machine's daemon keeps of what it names to the panes (daemon/shown.ts).
    const copies = config.bus.kind === 'postgres' ? shownDir(config) : null;
    let away: string | null = null;
    const read = async (id: string) => {
      if (away === null || !copies)
        try {
          return await bus.record(id);
        } catch (err) {
          if (!copies) throw err;
          away = explainBusError(err) ?? (err as Error).message;
        }
      return readShown(copies, id);
    };
    const one = parsed.ids.length === 1;
    let found = 0;
    for (const id of parsed.ids) {
      const r = await read(id);
      if (!r) {
        process.stderr.write(
          away === null
            ? `baton show: ${id} is not in the archive\n`
            : `baton show: ${id} is not among this machine's copies (${copies}: what its daemon named to a ` +
                `pane here), and this shell cannot read the database: ${away}\n`,
        );
        continue;
      }
      found++;
      if (inv.values.json) process.stdout.write(one ? `${JSON.stringify(r, null, 2)}\n` : `${JSON.stringify(r)}\n`);
      else process.stdout.write(`${found > 1 ? '\n' : ''}${asText(r)}`);
    }
    return found ? 0 : 1;
  },
};
