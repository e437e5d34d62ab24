import { openBus } from '../../bus/open.js';
import { isRecordId } from '../../core/ids.js';
import { configFrom, UsageError, type CommandSpec } from '../command.js';

export const show: CommandSpec = {
  usage: 'show ID [--json]',
  summary: 'one message in full: how a shell-kind agent reads what baton only names in its pane',
  options: { json: { type: 'boolean' } },
  examples: ['baton show msg_0007', 'baton show msg_0007 --json | jq -r .content'],
  help: `
Prints the archived message ID (msg_NNNN, or a person's user_NNNN): one line with who sent it to whom,
when, and what it replies to, then its content exactly as written. A shell-kind agent's pane gets only a
comment line naming the message (a shell would run its content), so this is how it reads it.

  ID       msg_0007 or user_0001
  --json   the archive record as stored`,
  async run(inv) {
    const [id, ...rest] = inv.positionals;
    if (!id || rest.length) throw new UsageError('name one message ID, like msg_0007');
    if (!isRecordId(id)) throw new UsageError(`"${id}" is not a message ID (msg_0007, user_0001)`);
    const r = await openBus(configFrom(inv)).record(id);
    if (!r) {
      process.stderr.write(`baton show: ${id} is not in the archive\n`);
      return 1;
    }
    if (inv.values.json) {
      process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
      return 0;
    }
    const head = [
      r.id,
      `${r.sender} → ${r.receiver}`,
      r.delivered_at ?? 'not typed yet',
      ...(r.reply_to ? [`reply to ${r.reply_to}`] : []),
      ...(r.type !== 'message' ? [`[${r.type}]`] : []),
      ...(r.subject ? [`— ${r.subject}`] : []),
    ];
    process.stdout.write(`${head.join('  ')}\n${r.content}${r.content.endsWith('\n') ? '' : '\n'}`);
    return 0;
  },
};
