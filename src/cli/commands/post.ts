import { readFileSync } from 'node:fs';
import { openBus } from '../../bus/open.js';
import { MESSAGE_TYPES } from '../../core/message.js';
import { configFrom, UsageError, type CommandSpec } from '../command.js';

export const post: CommandSpec = {
  usage: 'post TEXT [--as AGENT] [--to AGENT] [--type TYPE] [--subject TEXT] [--json]',
  summary: "an agent's reply: write a message into its outgoing folder",
  options: {
    as: { type: 'string' },
    to: { type: 'string' },
    type: { type: 'string' },
    subject: { type: 'string' },
    json: { type: 'boolean' },
  },
  examples: ['baton post "I agree; the parser is next."', "baton post --to codex1 - <<'MSG'\nmulti-line\nreply\nMSG"],
  help: `
Writes a well-formed message file atomically (temp file, then link into place) into the sending
agent's outgoing folder; the daemon gives it its ID and reply_to. Prints the file's path.

  TEXT              the message; "-" reads it from standard input. Text that starts with "-"
                    goes after "--":  baton post -- "-1 is the answer"
  --as AGENT        the sender (default: $BATON_AGENT, which "baton up" sets in every pane)
  --to AGENT        the receiver, when the sender has more than one outgoing folder
  --type TYPE       ${MESSAGE_TYPES.join(', ')} (default message)
  --subject TEXT    a subject line, kept in the archive and shown in the header
  --json            print {"file", "direction", "from", "to"} instead`,
  async run(inv) {
    const config = configFrom(inv);
    const v = inv.values as { as?: string; to?: string; type?: string; subject?: string; json?: boolean };
    const from = v.as ?? process.env.BATON_AGENT;
    if (!from) throw new UsageError('who is sending? give --as AGENT (or set BATON_AGENT)');
    if (!config.agents[from]) throw new UsageError(`unknown agent "${from}" (agents: ${config.order.join(', ')})`);
    if (inv.positionals.length !== 1) throw new UsageError(inv.positionals.length ? 'give the text as one argument (quote it)' : 'no message text given');
    const text = inv.positionals[0] === '-' ? readFileSync(0, 'utf8') : inv.positionals[0]!;
    if (!text.trim()) throw new UsageError('the message text is empty');
    if (v.type !== undefined && !(MESSAGE_TYPES as readonly string[]).includes(v.type)) {
      throw new UsageError(`--type must be one of ${MESSAGE_TYPES.join(', ')}`);
    }
    const outgoing = config.directions.filter((d) => d.from === from && (v.to === undefined || d.to === v.to));
    if (outgoing.length === 0) {
      throw new UsageError(v.to ? `${from} has no folder for messages to ${v.to}` : `${from} has no outgoing folder`);
    }
    if (outgoing.length > 1) {
      throw new UsageError(`${from} can write to ${outgoing.map((d) => d.to).join(', ')}: choose one with --to`);
    }
    const d = outgoing[0]!;
    const message = {
      timestamp: new Date().toISOString(),
      sender: from,
      receiver: d.to,
      content: text,
      type: v.type ?? 'message',
      ...(v.subject ? { subject: v.subject } : {}),
    };
    const file = await openBus(config).post(d, message);
    process.stdout.write(v.json ? `${JSON.stringify({ file, direction: d.name, from, to: d.to })}\n` : `${file}\n`);
    return 0;
  },
};
