/**
 * `baton send --to all`: the daemon answers with the panes that got the note and those not yet (docs/protocol.md
 * §11); the command follows the record a while, so it never says "sent" while one waits.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Archive } from '../bus/bus.js';
import type { Reply } from '../core/requests.js';
import { noteReply } from '../daemon/notes.js';

/** The daemon's reply to a note to all, followed until every pane has it or `timeoutMs` has passed. */
export async function awaitNote(bus: Pick<Archive, 'record'>, reply: Reply, timeoutMs: number): Promise<Reply> {
  const id = reply.id;
  const first = (reply.waiting ?? {}) as Record<string, string>;
  if (reply.ok || typeof id !== 'string' || !Object.keys(first).length || reply.daemon === false) return reply;
  const until = performance.now() + timeoutMs;
  for (;;) {
    const r = await bus.record(id);
    const waiting = Object.fromEntries(Object.entries(first).filter(([a]) => !r?.deliveries?.[a]?.at));
    const delivered = Object.keys(r?.deliveries ?? {}).filter((a) => r?.deliveries?.[a]?.at);
    if (!Object.keys(waiting).length || performance.now() >= until) return noteReply(id, { delivered, waiting }, false);
    await sleep(250);
  }
}
