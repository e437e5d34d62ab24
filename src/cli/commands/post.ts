import { HOOK_KINDS, hasHooks } from '../../core/hook-note.js';
import { MESSAGE_TYPES } from '../../core/message-types.js';
import { type CommandSpec, optionsOf, UsageError, type Values } from '../command.js';

export const post: CommandSpec = {
  usage:
    'post TEXT [--as AGENT] [--to AGENT] [--type TYPE] [--subject TEXT] [--wait] [--until delivered|received] [--timeout S] [--json]',
  summary: "an agent's reply: write a message into its outgoing folder",
  options: {
    ...optionsOf('string', 'as', 'to', 'type', 'subject', 'until', 'timeout'),
    ...optionsOf('boolean', 'json', 'wait'),
  },
  examples: [
    'baton post "I agree; the parser is next."',
    "baton post --to codex1 - <<'MSG'\nmulti-line\nreply\nMSG",
    'baton post --as claude1 --wait --until received "ping"',
  ],
  help: `
Writes a well-formed message file atomically (temp file, then link into place) into the sending
agent's outgoing folder; the daemon gives it its ID and reply_to. Prints the file's path. What baton
would reject is refused first, with the reason (exit 2): over inbox.max_bytes, a receiver that does not
exist or that the turn policy never lets the sender address. On the PostgreSQL bus an agent of this
machine's message waits in its folder for this machine's daemon (so a database that is away only delays
it); another machine's agent's goes into the database.

  TEXT              the message; "-" reads it from standard input. Text that starts with "-"
                    goes after "--":  baton post -- "-1 is the answer"
  --as AGENT        the sender (default: $BATON_AGENT, which "baton up" sets in every pane)
  --to AGENT        the receiver, when the sender has more than one outgoing folder
  --type TYPE       ${MESSAGE_TYPES.join(', ')} (default message)
  --subject TEXT    a subject line, kept in the archive and shown in the header
  --wait            wait until the message is delivered, then print its ID (exit 1 with the reason
                    when it is rejected, or with what it saw when the time runs out)
  --until STAGE     with --wait: delivered (typed, its submit confirmed; the default) or received (the
                    receiver's own hook reported the prompt its model got: kind ${HOOK_KINDS.join(', ')})
  --timeout S       with --wait: give up after S seconds (default 300)
  --json            print {"file", "direction", "from", "to"} instead (with --wait: also "id",
                    "delivered_at", "received")`,
  async run(inv) {
    const { openBus } = await import('../../bus/open.js');
    const { archivedIds, followPost } = await import('../../app/post-wait.js');
    const { composePost, postMessage } = await import('../../app/post.js');
    const { configFrom, textOrStdin } = await import('../inputs.js');
    // An agent's pane has no database URL (docs/trust.md): its message goes into its folder.
    const config = configFrom(inv, { busUrl: 'optional' });
    const v = inv.values as Values<'as' | 'to' | 'type' | 'subject' | 'until' | 'timeout', 'json' | 'wait'>;
    if (inv.positionals.length !== 1)
      throw new UsageError(
        inv.positionals.length ? 'give the text as one argument (quote it)' : 'no message text given',
      );
    const text = await textOrStdin(inv.positionals[0]!, config);
    const input = { from: v.as ?? process.env.BATON_AGENT, text, to: v.to, type: v.type, subject: v.subject };
    const composed = composePost(config, input); // every usage error before anything else happens
    const d = composed.direction;
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
    if (v.wait && config.bus.kind === 'postgres' && !config.bus.url)
      throw new UsageError(
        '--wait follows the message in the database, and this shell has no URL for it (BATON_BUS_URL): ' +
          "agents' panes do not get it; post without --wait, or wait from a shell that has it",
      );
    const bus = v.wait ? openBus(config) : null;
    const before = bus ? await archivedIds(bus) : null;
    const posted = await postMessage(config, composed);
    if (posted.kind === 'uncertain') {
      process.stderr.write(`baton post: ${posted.reason}\n`);
      return 1;
    }
    if (posted.kind === 'refused') {
      process.stderr.write(`baton post: not posted: ${posted.reason} (nothing was written)\n`);
      return 2;
    }
    const out = { file: posted.where, direction: d.name, from: d.from, to: d.to };
    // On the PostgreSQL bus a message left in its folder goes into the database when this machine's daemon
    // relays it: with the database away (a blink), it waits there, kept, and goes in turn once it is back.
    const queued =
      config.bus.kind === 'postgres' && posted.via === 'folder'
        ? `baton post: queued in ${d.name} on this machine; its daemon stores it in the conversation\n`
        : '';
    if (!bus) {
      process.stdout.write(v.json ? `${JSON.stringify(out)}\n` : `${posted.where}\n`);
      if (!v.json) process.stderr.write(queued);
      return 0;
    }
    const w = await followPost(bus, { post: posted, before, until, timeoutMs: timeout * 1000 });
    const r = w.record;
    if (v.json) {
      const receipt = { id: r?.id ?? null, delivered_at: r?.delivered_at ?? null, received: r?.received ?? null };
      process.stdout.write(`${JSON.stringify({ ...out, ...receipt, ...(w.ok ? {} : { error: w.why }) })}\n`);
    } else if (w.ok) process.stdout.write(`${w.record.id}\n`);
    if (!w.ok) process.stderr.write(`baton post: ${w.why}\n`);
    return w.ok ? 0 : 1;
  },
};
