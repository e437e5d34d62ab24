/**
 * A person steering the conversation (docs/protocol.md §8, §9): end, pause, resume, start, send, approve, reject.
 * Each is a request the daemon answers (daemon/steering.ts); with no daemon, the asking command answers it with
 * the daemon's code under its lease. Input is checked here, so the CLI and the dashboard judge it the same way.
 */
import { openBus } from '../bus/open.js';
import { LeaseHeldError } from '../bus/bus.js';
import type { Config } from '../config/config.js';
import { MESSAGE_TYPES } from '../core/message.js';
import type { Reply, Request } from '../core/requests.js';
import { Daemon } from '../daemon/daemon.js';
import { log } from '../lib/log.js';
import { UsageError } from './input.js';

const REPLY_TIMEOUT_MS = 15_000;
/** How often an unanswered request looks again for a daemon to answer it. */
const LOOK_EVERY_MS = 1000;

/** Answer the request here, with the daemon's own code, when no daemon holds the conversation (or starts meanwhile). */
async function answerHere(config: Config, bus: ReturnType<typeof openBus>): Promise<void> {
  if ((await bus.daemon()).running) return;
  const quiet = log.create({ level: Math.min(log.level, 1) });
  try {
    await new Daemon(config, bus, { oneshot: true, log: quiet }).start();
  } catch (err) {
    if (!(err instanceof LeaseHeldError)) throw err;
  }
}

export async function request(config: Config, req: Request): Promise<Reply> {
  const bus = openBus(config);
  const name = await bus.submit(req);
  // Until answered, whenever no daemon holds it, answer it here: looked at every second, since a holder seen at
  // first (a daemon on its way out, a paused one's lease not yet stale) may be gone, and then nobody would answer.
  const until = Date.now() + REPLY_TIMEOUT_MS;
  for (;;) {
    await answerHere(config, bus);
    const reply = await bus.awaitReply(name, Math.max(0, Math.min(LOOK_EVERY_MS, until - Date.now())));
    if (reply) return reply;
    if (Date.now() >= until) break;
  }
  // No answer: take the request back, so "failed" means not done. Gone already means the daemon is on it.
  if (await bus.withdraw(name))
    return {
      ok: false,
      message:
        `the daemon did not answer within ${REPLY_TIMEOUT_MS / 1000} s; ` +
        'nothing was done (baton status shows what it is doing)',
    };
  return (
    (await bus.awaitReply(name, REPLY_TIMEOUT_MS)) ?? {
      ok: false,
      message: 'the daemon took the request but did not answer; see baton status and baton log',
    }
  );
}

export const endRequest = (reason?: string): Request => ({ op: 'end', ...(reason?.trim() ? { reason } : {}) });

export function sendRequest(config: Config, to: string | undefined, content: string, type = 'message'): Request {
  if (!to) throw new UsageError('who gets it? give --to AGENT (or --to all)');
  if (to !== 'all' && !Object.hasOwn(config.agents, to))
    throw new UsageError(`unknown agent "${to}" (agents: ${config.order.join(', ')}, or all)`);
  if (!content.trim()) throw new UsageError('the message text is empty');
  if (!(MESSAGE_TYPES as readonly string[]).includes(type))
    throw new UsageError(`--type must be one of ${MESSAGE_TYPES.join(', ')}`);
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

export function startRequest(topic: string | undefined): Request {
  if (!topic?.trim()) throw new UsageError('give the topic: baton start "what the agents should talk about"');
  return { op: 'start', topic };
}
