/**
 * A person steering the conversation (docs/protocol.md §8, §9): end, pause, resume, start, send, approve, reject.
 * Each is a request (app/requests.ts) the daemon answers; with no daemon running the command answers it
 * itself, with the daemon's own code, under the daemon's lease.
 */
import type { Config } from '../../config/config.js';
import { MESSAGE_TYPES } from '../../core/message-types.js';
import type { Request } from '../../core/requests.js';
import { answered, type CommandSpec, type Invocation, noPositionals, UsageError } from '../command.js';

/** What these commands run, loaded when one runs. */
const requests = () => import('../../app/requests.js');
const configOf = async (inv: Invocation) => (await import('../inputs.js')).configFrom(inv);

/** Hand `req` to the daemon (or answer it here when none runs) and print the answer. */
const ask = async (inv: Invocation, config: Config, req: Request): Promise<number> =>
  answered(await (await requests()).request(config, req), isJson(inv));

const jsonOpt = { json: { type: 'boolean' } } as const;
const isJson = (inv: Invocation) => Boolean(inv.values.json);

/** TEXT as the one positional, or standard input for "-". */
async function textArg(inv: Invocation, what: string, config: Config): Promise<string> {
  if (inv.positionals.length !== 1)
    throw new UsageError(inv.positionals.length ? `give the ${what} as one argument (quote it)` : `no ${what} given`);
  const { textOrStdin } = await import('../inputs.js');
  return textOrStdin(inv.positionals[0]!, config);
}

export const start: CommandSpec = {
  usage: 'start TOPIC [--json]',
  summary: 'kick off: type a topic to the agent holding the turn, which opens the conversation',
  options: { ...jsonOpt },
  examples: [
    'baton start "Review src/parser.ts together and agree on the three riskiest functions"',
    'baton start - < topic.md',
  ],
  help: `
Types TOPIC into the pane of the agent that holds the turn (first_turn in a new conversation), as the
opening of its turn: "[baton] user_0001 from user [task]", the topic, then how to answer through baton
(under round_robin and alternate: to the next agent; under handoff: to any agent it chooses). Archived
as archive/user_NNNN.json (kickoff: true) and shown by "baton log". The turn does not move; reminders
(turns.timeout_s) count from now. "baton up --topic TEXT" does this once the agents are ready.

Fails (exit 1) when the holder's pane cannot take it now (not started yet, a dialog, text in its box).

  TOPIC    what to talk about; "-" reads it from standard input
  --json   print the daemon's answer as JSON`,
  async run(inv) {
    const { startRequest } = await requests();
    const config = await configOf(inv);
    return ask(inv, config, startRequest(await textArg(inv, 'topic', config)));
  },
};

export const pause: CommandSpec = {
  usage: 'pause [--json]',
  summary: 'hold every delivery without telling the agents to stop ("baton resume" continues)',
  options: { ...jsonOpt },
  examples: ['baton pause', 'baton pause && baton log --follow'],
  help: `
Messages agents write wait in their folders (held, not lost) and nobody is reminded, until "baton
resume". Unlike "baton end", the agents are not told anything: use it to look at something, then let
the conversation go on as if nothing happened. A delivery already under way is finished first.

  --json   print the daemon's answer as JSON`,
  async run(inv) {
    noPositionals(inv);
    return ask(inv, await configOf(inv), { op: 'pause' });
  },
};

export const end: CommandSpec = {
  usage: 'end [--reason TEXT] [--json]',
  summary: 'end the conversation now: every agent is told to stop, later files are held',
  options: { reason: { type: 'string' }, ...jsonOpt },
  examples: ['baton end --reason "we have what we needed"'],
  help: `
state.json gets finished: {"reason": "ended", "at": …} (with --reason as "note"), a "finished" event is
logged, and every agent's pane gets a short notice to stop. Files agents write later stay in their
folders (held, not lost) until "baton resume", which tells every pane the conversation continues.
To hold deliveries without telling the agents anything, use "baton pause".

  --reason TEXT   why, kept in state.json and typed into the notice
  --json          print the daemon's answer as JSON`,
  async run(inv) {
    noPositionals(inv);
    const { endRequest } = await requests();
    return ask(inv, await configOf(inv), endRequest(inv.values.reason as string | undefined));
  },
};

export const resume: CommandSpec = {
  usage: 'resume [--budget USD] [--json]',
  summary: 'continue a finished, paused or stalled conversation',
  options: { budget: { type: 'string' }, ...jsonOpt },
  examples: ['baton resume', 'baton resume --budget 20'],
  help: `
Clears finished, paused and stalled in state.json; held files are delivered in turn and the turn
holder's reminders start over.
- After "baton end" (or max_turns, the stop phrase, max_duration_s), whose notice told every agent to
  stop: every pane is told the conversation continues and who has the turn, and the holder what it
  owes. max_turns and max_duration_s count again from now.
- After "baton pause", which told nobody: nobody is told. The same after the loop guard paused it
  (turns.loop_guard): it then looks only at messages after the ones it paused on.
- After a cost budget paused it (turns.max_cost_usd, agents.NAME.max_cost_usd): the budget stays spent,
  so the next turn that adds cost pauses it again (one more turn per resume); --budget raises it.
- A stalled holder (silent after every reminder) is reminded once more.

  --budget USD   raise the budget that paused it (else turns.max_cost_usd) to USD for this conversation
                 (kept in its state, over config.json's)
  --json         print the daemon's answer as JSON`,
  async run(inv) {
    noPositionals(inv);
    const raw = inv.values.budget as string | undefined;
    const budget = raw === undefined ? undefined : Number(raw);
    if (budget !== undefined && !(Number.isFinite(budget) && budget > 0))
      throw new UsageError(`--budget: a number of US dollars above 0, not "${raw}"`);
    return ask(inv, await configOf(inv), { op: 'resume', ...(budget !== undefined ? { budget } : {}) });
  },
};

export const send: CommandSpec = {
  usage: 'send --to AGENT|all TEXT [--type TYPE] [--timeout S] [--json]',
  summary: "a person's remark, typed into an agent's pane, or a note to all of them (not a turn)",
  options: { to: { type: 'string' }, type: { type: 'string' }, timeout: { type: 'string' }, ...jsonOpt },
  examples: [
    'baton send --to claude2 "Keep it under 200 words, please."',
    'baton send --to all "Stop at the end of this round and summarise."',
  ],
  help: `
Types TEXT into AGENT's pane with the header "[baton] user_NNNN from user" and archives it as
archive/user_NNNN.json (its own counter). It is not a turn and needs no reply: current_turn,
message_counter, last_message_id and pending_reply_to do not change. To give the agents a topic to
talk about, use "baton start TOPIC" (or "baton up --topic TOPIC"). Fails (exit 1) when the agent's
pane is unavailable; nothing is queued.

--to all types the note once into every agent's pane, each when its pane can take it, as a directive
from a person; it is archived once (receiver "all") with each agent's delivery on it. The command
says which panes got it and which still wait; for those the daemon keeps trying. Exit 0 only when
every pane got it within --timeout (default 10 s); otherwise exit 1, and the note is not lost: do not
send it again.

  TEXT          the message; "-" reads it from standard input
  --to AGENT    who gets it: an agent, or all
  --type TYPE   ${MESSAGE_TYPES.join(', ')} (default message)
  --timeout S   with --to all: how long to wait for panes that cannot take it yet (default 10)
  --json        print the daemon's answer as JSON`,
  async run(inv) {
    const { request, sendRequest } = await requests();
    const config = await configOf(inv);
    const to = inv.values.to as string | undefined;
    if (!to) throw new UsageError('who gets it? give --to AGENT (or --to all)');
    const t = inv.values.timeout as string | undefined;
    if (t !== undefined && to !== 'all') throw new UsageError('--timeout goes with --to all');
    const timeout = t === undefined ? 10 : Number(t);
    if (!Number.isFinite(timeout) || timeout < 0) throw new UsageError('--timeout takes a number of seconds');
    const content = await textArg(inv, 'message text', config);
    const req = sendRequest(config, to, content, inv.values.type as string | undefined);
    if (to !== 'all') return ask(inv, config, req);
    const { awaitNote } = await import('../../app/note-wait.js');
    const { openBus } = await import('../../bus/open.js');
    return answered(await awaitNote(openBus(config), await request(config, req), timeout * 1000), isJson(inv));
  },
};

export const approve: CommandSpec = {
  usage: 'approve (FILE | --all) [--json]',
  summary: 'moderated mode: deliver a message waiting in pending/',
  options: { all: { type: 'boolean' }, ...jsonOpt },
  examples: ['baton approve c1_to_c2/msg_1732400000000000000.json', 'baton approve --all'],
  help: `
With turns.moderated, each valid agent message waits in message_dir/pending/<direction>/ with no ID
and no change to state.json. approve delivers it: the ID is given now, the turn passes.

  FILE     as named in pending/: "<direction>/<name>", or just "<name>" when that is unambiguous
  --all    every pending file, in order
  --json   print the daemon's answer as JSON`,
  async run(inv) {
    if (inv.positionals.length > 1) throw new UsageError('give one pending FILE, or --all');
    const { approveRequest } = await requests();
    return ask(inv, await configOf(inv), approveRequest(inv.positionals[0], Boolean(inv.values.all)));
  },
};

export const reject: CommandSpec = {
  usage: 'reject FILE --reason TEXT [--json]',
  summary: "moderated mode: refuse a pending message; the reason goes back to its sender's pane",
  options: { reason: { type: 'string' }, ...jsonOpt },
  examples: ['baton reject msg_1732400000000000000.json --reason "cite the file and line, please"'],
  help: `
Moves the pending file to rejected/ (with a note naming the reason) and types the reason into the
sender's pane. The turn stays with the sender, who writes a new message.

  FILE            as named in pending/ ("<direction>/<name>" or "<name>")
  --reason TEXT   why (required)
  --json          print the daemon's answer as JSON`,
  async run(inv) {
    if (inv.positionals.length > 1) throw new UsageError('give one pending FILE');
    const { rejectRequest } = await requests();
    return ask(inv, await configOf(inv), rejectRequest(inv.positionals[0], inv.values.reason as string | undefined));
  },
};
