/**
 * A person's messages (steering.ts): `baton send` types one into an agent's pane, `baton start` (and
 * `baton up --topic`) opens the conversation with one. Each is archived as user_NNNN with its own counter;
 * no turn moves. One archived but not stamped (a daemon killed while typing it) is typed again, flagged —
 * after a look at what its paste may have left in the pane (leftover.ts), as for any message.
 */
import { isoAt } from '../bus/bus.js';
import { kickoffHint, userHint } from '../core/compose.js';
import { fresh } from '../core/delivery.js';
import { personRecord, stamped, withReceipt } from '../core/record.js';
import { fail, type Reply } from '../core/requests.js';
import { why } from './pipeline.js';
import type { Stage } from './stage.js';

export interface PersonMessage {
  to: string;
  content: string;
  type: string;
  /** The request's name: it finds the message again after a crash. */
  request: string;
  /** What the pane is told about answering (default: userHint). */
  hint?: string | undefined;
  /** Goes into the record and the `sent` event. */
  extra?: Record<string, unknown>;
}

/** A person's message (`baton send`): user_NNNN in the archive, typed into the agent's pane, no turn moved. */
export async function send(stage: Stage, m: PersonMessage): Promise<Reply> {
  const { config, bus, typing } = stage;
  const { to, content, type, request, hint, extra = {} } = m;
  if (!config.agents[to]) return fail(`unknown agent "${to}" (agents: ${config.order.join(', ')})`);
  // Done already (a daemon killed after typing, before answering)? Then say so; typed but unstamped: flag it.
  let record = await bus.findPersonMessage(request);
  if (record?.delivered_at) return { ok: true, message: `${record.id} typed into ${to}'s pane`, id: record.id };
  // Archived but not stamped: its paste may still sit in the box, unsubmitted (leftover.ts).
  const ready = await typing.gate(to, record ? { id: record.id, inBox: true } : undefined);
  if (!ready.ok) {
    const running = stage.oneshot ? ': nothing is running for this conversation; start it with "baton up"' : '';
    // `unavailable`: nothing was done and trying again later may work (`up --topic` waits for the agent).
    return { ok: false, message: `not sent: ${to} cannot take it now (${ready.reason})${running}`, unavailable: true };
  }
  const typedBefore = record !== null;
  const receivedAt = isoAt(bus.now());
  record ??= await bus.archivePersonMessage((id) =>
    personRecord({ id, to, content, type, request, receivedAt, extra }),
  );
  const id = record.id;
  const envelope = { id, from: 'user', to, reply_to: null, type, content };
  const text = { envelope, hint: hint ?? userHint(bus.state()) };
  const out = await typing.advance({ to, text, pane: ready.pane }, fresh(typedBefore));
  if (out.stop?.kind === 'failed' && out.stop.untouched)
    return { ok: false, message: `not sent: ${out.stop.error}`, unavailable: true };
  if (out.stop)
    return fail(
      `${id} is archived but its typing was not confirmed (${why(out.stop)}); look at ${to}'s pane before sending it again`,
    );
  const { redelivered } = out.typing;
  await bus.stamp(
    withReceipt(stamped(record, out.typing.confirmation, redelivered, isoAt(bus.now())), stage.receiptFor(id)),
  );
  await bus.events.emit('sent', { id, to, ...extra, ...(redelivered ? { redelivered: true } : {}) });
  stage.log.success(`${id} user → ${to}`);
  return { ok: true, message: `${id} typed into ${to}'s pane`, id };
}

/**
 * A kick-off (`baton start`, `baton up --topic`): the topic is typed to the turn holder as the opening of
 * its turn, with how to answer through baton, and archived as a person's message (user_NNNN, kickoff).
 * The turn does not move; its clock starts again, so reminders count from the topic.
 */
export async function kickoff(stage: Stage, topic: string, request: string): Promise<Reply> {
  const st = stage.bus.state();
  if (st.finished)
    return fail(`the conversation has finished (${st.finished.reason}); "baton resume" continues it, then start`);
  const holder = st.current_turn;
  const reply = await send(stage, {
    to: holder,
    content: topic,
    type: 'task',
    request,
    hint: kickoffHint(stage.config, holder, st.pending_reply_to),
    extra: { kickoff: true },
  });
  if (!reply.ok) return reply;
  await stage.bus.update((s) => ({ ...s, turn_started_at: isoAt(stage.bus.now()), nudges: 0, stalled: false }));
  stage.resumed();
  return {
    ...reply,
    message:
      `${reply.message}: ${holder} opens the conversation` +
      (st.paused ? ' (it is paused: "baton resume" lets messages through)' : ''),
  };
}
