import { readFileSync } from 'node:fs';
import { openBus } from '../../bus/open.js';
import { HOOK_KINDS, hasHooks } from '../../core/hook-note.js';
import { MESSAGE_TYPES } from '../../core/message.js';
import { configFrom, UsageError, type CommandSpec } from '../command.js';
import { followPost } from '../../app/post-wait.js';
import { composePost } from '../../app/post.js';

export const post: CommandSpec = {
  usage:
    'post TEXT [--as AGENT] [--to AGENT] [--type TYPE] [--subject TEXT] [--wait] [--until delivered|received] [--timeout S] [--json]',
  summary: "an agent's reply: write a message into its outgoing folder",
  options: {
    as: { type: 'string' },
    to: { type: 'string' },
    type: { type: 'string' },
    subject: { type: 'string' },
    json: { type: 'boolean' },
    wait: { type: 'boolean' },
    until: { type: 'string' },
    timeout: { type: 'string' },
  },
  examples: [
    'baton post "I agree; the parser is next."',
    "baton post --to codex1 - <<'MSG'\nmulti-line\nreply\nMSG",
    'baton post --as claude1 --wait --until received "ping"',
  ],
  help: `
Writes a well-formed message file atomically (temp file, then link into place) into the sending
agent's outgoing folder; the daemon gives it its ID and reply_to. Prints the file's path.

  TEXT              the message; "-" reads it from standard input. Text that starts with "-"
                    goes after "--":  baton post -- "-1 is the answer"
  --as AGENT        the sender (default: $BATON_AGENT, which "baton up" sets in every pane)
  --to AGENT        the receiver, when the sender has more than one outgoing folder
  --type TYPE       ${MESSAGE_TYPES.join(', ')} (default message)
  --subject TEXT    a subject line, kept in the archive and shown in the header
  --wait            wait until the message is delivered, then print its ID (exit 1 with the reason
                    when it is rejected or the time runs out)
  --until STAGE     with --wait: delivered (typed, its submit confirmed; the default) or received (the
                    receiver's own hook reported the prompt its model got: kind ${HOOK_KINDS.join(', ')})
  --timeout S       with --wait: give up after S seconds (default 300)
  --json            print {"file", "direction", "from", "to"} instead (with --wait: also "id",
                    "delivered_at", "received")`,
  async run(inv) {
    const config = configFrom(inv);
    const v = inv.values as {
      as?: string;
      to?: string;
      type?: string;
      subject?: string;
      json?: boolean;
      wait?: boolean;
      until?: string;
      timeout?: string;
    };
    if (inv.positionals.length !== 1)
      throw new UsageError(
        inv.positionals.length ? 'give the text as one argument (quote it)' : 'no message text given',
      );
    const text = inv.positionals[0] === '-' ? readFileSync(0, 'utf8') : inv.positionals[0]!;
    const { direction: d, message } = composePost(config, {
      from: v.as ?? process.env.BATON_AGENT,
      text,
      to: v.to,
      type: v.type,
      subject: v.subject,
    });
    const from = d.from;
    const until = v.until ?? 'delivered';
    if (until !== 'delivered' && until !== 'received') throw new UsageError('--until must be delivered or received');
    if ((v.until || v.timeout) && !v.wait) throw new UsageError('--until and --timeout go with --wait');
    const timeout = v.timeout === undefined ? 300 : Number(v.timeout);
    if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError('--timeout takes a number of seconds');
    if (until === 'received' && !hasHooks(config.agents[d.to]!.kind))
      throw new UsageError(
        `--until received needs a receiver whose hooks baton reads (kind ${HOOK_KINDS.join(', ')}); ` +
          `${d.to} is ${config.agents[d.to]!.kind}`,
      );
    const bus = openBus(config);
    const after = v.wait ? (await bus.archiveView()).n : 0;
    const file = await bus.post(d, message);
    if (!v.wait) {
      process.stdout.write(v.json ? `${JSON.stringify({ file, direction: d.name, from, to: d.to })}\n` : `${file}\n`);
      return 0;
    }
    const w = await followPost(bus, { where: file, after, until, timeoutMs: timeout * 1000 });
    const r = w.record;
    if (v.json) {
      const receipt = { id: r?.id ?? null, delivered_at: r?.delivered_at ?? null, received: r?.received ?? null };
      const out = { file, direction: d.name, from, to: d.to, ...receipt, ...(w.ok ? {} : { error: w.why }) };
      process.stdout.write(`${JSON.stringify(out)}\n`);
    } else if (w.ok) process.stdout.write(`${w.record.id}\n`);
    if (!w.ok) process.stderr.write(`baton post: ${w.why}\n`);
    return w.ok ? 0 : 1;
  },
};
