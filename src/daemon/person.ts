/**
 * A person's messages (steering.ts): `baton send` types one into an agent's pane, `baton start` (and
 * `baton up --topic`) opens the conversation with one. Each is archived as user_NNNN with its own counter;
 * no turn moves. One archived but not stamped (a daemon killed while typing it) is typed again, flagged —
 * after a look at what its paste may have left in the pane (leftover.ts), as for any message.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isoAt } from '../bus/bus.js';
import type { Agent } from '../config/config.js';
import { headerPrefix, kickoffHint, render, userHint } from '../core/compose.js';
import { type Confirmation, personRecord, stamped, withReceipt } from '../core/record.js';
import type { Reply } from '../core/requests.js';
import { type PaneInfo, paneRef } from '../terminal/pane.js';
import type { Typed } from '../terminal/typist.js';
import { leftover } from './leftover.js';
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
  const { config, bus } = stage;
  const { to, content, type, request, hint, extra = {} } = m;
  if (!config.agents[to]) return { ok: false, message: `unknown agent "${to}" (agents: ${config.order.join(', ')})` };
  // Done already (a daemon killed after typing, before answering)? Then say so; typed but unstamped: flag it.
  let record = await bus.findPersonMessage(request);
  if (record?.delivered_at) return { ok: true, message: `${record.id} typed into ${to}'s pane`, id: record.id };
  // Archived but not stamped: its paste may still sit in the box, unsubmitted (leftover.ts).
  const ready = await stage.ready(to, record ? headerPrefix(record.id) : undefined);
  if (!ready.ok) {
    const running = stage.oneshot ? ': nothing is running for this conversation; start it with "baton up"' : '';
    // `unavailable`: nothing was done and trying again later may work (`up --topic` waits for the agent).
    return {
      ok: false,
      message: `not sent: ${to} cannot take it now (${ready.reason})${running}`,
      unavailable: true,
    };
  }
  let redelivered = record !== null;
  const receivedAt = isoAt(bus.now());
  record ??= await bus.archivePersonMessage((id) =>
    personRecord({ id, to, content, type, request, receivedAt, extra }),
  );
  const id = record.id;
  const copy = (flagged: boolean) =>
    render(
      { id, from: 'user', to, reply_to: null, type, content, redelivered: flagged },
      config.delivery.template,
      hint ?? userHint(bus.state()),
    );
  const agent = config.agents[to]!;
  let typed: Typed<Confirmation> | null = null;
  if (redelivered) {
    const look = {
      id,
      receiver: to,
      leftover: true,
      agent,
      pane: ready.pane,
      copies: [copy(false), copy(true)],
    } as const;
    const left = await leftover(stage, look);
    if (left.kind === 'other') return { ok: false, message: `not sent: ${left.error}`, unavailable: true };
    if (left.kind === 'failed') typed = left.failure;
    else if (left.kind === 'found') {
      redelivered = left.flagged;
      typed = await submit(stage, agent, ready.pane, id);
    } else if (left.kind === 'entered') await sleep(stage.typist.enterDelay(agent)); // its submit first
  }
  typed ??= await stage.typist.type(agent, ready.pane, copy(redelivered), stage.typist.enterDelay(agent));
  if (!typed.ok)
    return {
      ok: false,
      message: `${id} is archived but its typing was not confirmed (${typed.error}); look at ${to}'s pane before sending it again`,
    };
  await bus.stamp(
    withReceipt(stamped(record, typed.value, redelivered, isoAt(bus.now())), stage.receiptFor(record.id)),
  );
  await bus.events.emit('sent', { id: record.id, to, ...extra, ...(redelivered ? { redelivered: true } : {}) });
  stage.log.success(`${record.id} user → ${to}`);
  return { ok: true, message: `${record.id} typed into ${to}'s pane`, id: record.id };
}

/** Its paste found in the box: Enter, confirmed as usual. */
async function submit(stage: Stage, agent: Agent, pane: PaneInfo, id: string): Promise<Typed<Confirmation>> {
  const ref = paneRef(pane);
  const entered = await stage.typist.enter(ref, 0, agent);
  return entered.ok ? stage.typist.confirm(agent, ref, headerPrefix(id)) : entered;
}

/**
 * A kick-off (`baton start`, `baton up --topic`): the topic is typed to the turn holder as the opening of
 * its turn, with how to answer through baton, and archived as a person's message (user_NNNN, kickoff).
 * The turn does not move; its clock starts again, so reminders count from the topic.
 */
export async function kickoff(stage: Stage, topic: string, request: string): Promise<Reply> {
  const st = stage.bus.state();
  if (st.finished)
    return {
      ok: false,
      message: `the conversation has finished (${st.finished.reason}); "baton resume" continues it, then start`,
    };
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
  await stage.bus.update((s) => ({
    ...s,
    turn_started_at: isoAt(stage.bus.now()),
    nudges: 0,
    stalled: false,
  }));
  stage.resumed();
  return {
    ...reply,
    message:
      `${reply.message}: ${holder} opens the conversation` +
      (st.paused ? ' (it is paused: "baton resume" lets messages through)' : ''),
  };
}
