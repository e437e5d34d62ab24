/**
 * A person steering the conversation (SPEC §8, §9): end, resume, send, approve, reject. Each one is a
 * request the daemon answers (requests.ts); with no daemon running the command answers it itself,
 * with the daemon's own code, under the daemon's lock.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';
import { Daemon } from '../daemon.js';
import { layout } from '../layout.js';
import { daemonStatus, LockHeldError } from '../lock.js';
import { log } from '../log.js';
import { MESSAGE_TYPES } from '../message.js';
import { awaitReply, submitRequest, withdrawRequest, type Reply, type Request } from '../requests.js';
import { configFrom, noPositionals, UsageError, type CommandSpec, type Invocation } from './common.js';

const REPLY_TIMEOUT_MS = 15_000;

/** Hand `req` to the daemon (or answer it here when none runs) and print the answer. */
export async function ask(config: Config, req: Request, json: boolean): Promise<number> {
  const reply = await request(config, req);
  process.stdout.write(json ? `${JSON.stringify(reply)}\n` : `${reply.message}\n`);
  return reply.ok ? 0 : 1;
}

export async function request(config: Config, req: Request): Promise<Reply> {
  const l = layout(config);
  const name = await submitRequest(l.requests, req);
  if (!(await daemonStatus(l)).running) {
    const quiet = log.create({ level: Math.min(log.level, 1) });
    try {
      await new Daemon(config, { oneshot: true, log: quiet }).start();
    } catch (err) {
      if (!(err instanceof LockHeldError)) throw err; // a daemon started meanwhile: it answers
    }
  }
  const reply = await awaitReply(l.requests, name, REPLY_TIMEOUT_MS);
  if (reply) return reply;
  // No answer: take the request back, so "failed" means not done. Gone already means the daemon is on it.
  if (await withdrawRequest(l.requests, name)) return { ok: false, message: `the daemon did not answer within ${REPLY_TIMEOUT_MS / 1000} s; nothing was done (baton status shows what it is doing)` };
  return (await awaitReply(l.requests, name, REPLY_TIMEOUT_MS)) ?? { ok: false, message: 'the daemon took the request but did not answer; see baton status and baton log' };
}

/*
 * The requests, checked: the CLI commands below and the web dashboard (ui/server.ts) both build them
 * here, so a person's input is judged the same way wherever it comes from. A bad one throws UsageError.
 */
export function endRequest(reason?: string): Request {
  return { op: 'end', ...(reason?.trim() ? { reason } : {}) };
}

export function sendRequest(config: Config, to: string | undefined, content: string, type = 'message'): Request {
  if (!to) throw new UsageError('who gets it? give --to AGENT');
  if (!Object.hasOwn(config.agents, to)) throw new UsageError(`unknown agent "${to}" (agents: ${config.order.join(', ')})`);
  if (!content.trim()) throw new UsageError('the message text is empty');
  if (!(MESSAGE_TYPES as readonly string[]).includes(type)) throw new UsageError(`--type must be one of ${MESSAGE_TYPES.join(', ')}`);
  return { op: 'send', to, content, type: type as (typeof MESSAGE_TYPES)[number] };
}

export function approveRequest(file: string | undefined, all: boolean): Request {
  if (all === (file !== undefined)) throw new UsageError('give one pending FILE, or --all');
  if (file !== undefined && !file.trim()) throw new UsageError('the pending FILE name is empty');
  return all ? { op: 'approve', all } : { op: 'approve', file: file! };
}

export function rejectRequest(file: string | undefined, reason: string | undefined): Request {
  if (!file?.trim()) throw new UsageError('give one pending FILE');
  if (!reason?.trim()) throw new UsageError('say why with --reason TEXT');
  return { op: 'reject', file, reason };
}

const jsonOpt = { json: { type: 'boolean' } } as const;
const isJson = (inv: Invocation) => Boolean(inv.values.json);

export const end: CommandSpec = {
  usage: 'end [--reason TEXT] [--json]',
  summary: 'end the conversation now: nothing more is delivered, later files are held',
  options: { reason: { type: 'string' }, ...jsonOpt },
  help: `
state.json gets finished: {"reason": "ended", "at": …} (with --reason as "note"), a "finished" event is
logged, and every agent's pane gets a short notice. Files agents write later stay in their folders
(held, not lost) until "baton resume".`,
  async run(inv) {
    noPositionals(inv);
    return ask(configFrom(inv), endRequest(inv.values.reason as string | undefined), isJson(inv));
  },
};

export const resume: CommandSpec = {
  usage: 'resume [--json]',
  summary: 'continue a finished (or stalled) conversation',
  options: { ...jsonOpt },
  help: `
Clears finished and stalled in state.json. max_turns and max_duration_s count again from now; the
turn holder's reminders start over. Held files are delivered in turn.`,
  async run(inv) {
    noPositionals(inv);
    return ask(configFrom(inv), { op: 'resume' }, isJson(inv));
  },
};

export const send: CommandSpec = {
  usage: 'send --to AGENT TEXT',
  summary: "a person's message, typed into an agent's pane (moves no turn)",
  options: { to: { type: 'string' }, type: { type: 'string' }, ...jsonOpt },
  help: `
Types TEXT into AGENT's pane with the header "[baton] user_NNNN from user" and archives it as
archive/user_NNNN.json (its own counter). current_turn, message_counter, last_message_id and
pending_reply_to do not change. Fails (exit 1) when the agent's pane is unavailable.

  TEXT          the message; "-" reads it from standard input
  --to AGENT    who gets it
  --type TYPE   ${MESSAGE_TYPES.join(', ')} (default message)`,
  async run(inv) {
    const config = configFrom(inv);
    const to = inv.values.to as string | undefined;
    if (!to) throw new UsageError('who gets it? give --to AGENT');
    if (inv.positionals.length !== 1) throw new UsageError(inv.positionals.length ? 'give the text as one argument (quote it)' : 'no message text given');
    const content = inv.positionals[0] === '-' ? readFileSync(0, 'utf8') : inv.positionals[0]!;
    return ask(config, sendRequest(config, to, content, inv.values.type as string | undefined), isJson(inv));
  },
};

export const approve: CommandSpec = {
  usage: 'approve FILE | --all',
  summary: 'moderated mode: deliver a message waiting in pending/',
  options: { all: { type: 'boolean' }, ...jsonOpt },
  help: `
With turns.moderated, each valid agent message waits in message_dir/pending/<direction>/ with no ID
and no change to state.json. approve delivers it: the ID is given now, the turn passes.

  FILE    as named in pending/: "<direction>/<name>", or just "<name>" when that is unambiguous
  --all   every pending file, in order`,
  async run(inv) {
    if (inv.positionals.length > 1) throw new UsageError('give one pending FILE, or --all');
    return ask(configFrom(inv), approveRequest(inv.positionals[0], Boolean(inv.values.all)), isJson(inv));
  },
};

export const reject: CommandSpec = {
  usage: 'reject FILE --reason TEXT',
  summary: "moderated mode: refuse a pending message; the reason goes back to its sender's pane",
  options: { reason: { type: 'string' }, ...jsonOpt },
  help: `
Moves the pending file to rejected/ (with a note naming the reason) and types the reason into the
sender's pane. The turn stays with the sender, who writes a new message.

  FILE            as named in pending/ ("<direction>/<name>" or "<name>")
  --reason TEXT   why (required)`,
  async run(inv) {
    if (inv.positionals.length > 1) throw new UsageError('give one pending FILE');
    return ask(configFrom(inv), rejectRequest(inv.positionals[0], inv.values.reason as string | undefined), isJson(inv));
  },
};
