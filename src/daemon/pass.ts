/**
 * One pass of the delivery loop: the named stages below over one context, in STAGES' order. At most one message
 * is delivered per pass.
 */
import type { Moderation, Queues, Records, TurnState, Waiting } from '../bus/bus.js';
import type { Conductor } from './conductor.js';
import type { Courier } from './courier.js';
import type { Dialogs } from './dialogs.js';
import type { Notes } from './notes.js';
import type { Pipeline } from './pipeline.js';
import type { Receipts } from './receipts.js';
import type { RejectionNotices } from './rejections.js';
import type { Restarts } from './restarted.js';
import type { QueueScan } from './scan.js';
import type { Steering } from './steering.js';
import type { Taker } from './take.js';
import type { Uses } from './context.js';

export interface PassParts extends Uses<'config' | 'log'> {
  bus: Moderation & Queues & Records & TurnState;
  typing: Pick<Pipeline, 'gate'>;
  receipts: Receipts;
  dialogs: Pick<Dialogs, 'run'>;
  courier: Courier;
  steering: Steering;
  conductor: Conductor;
  scan: QueueScan;
  rejections: RejectionNotices;
  taker: Taker;
  notes: Pick<Notes, 'run'>;
  restarts: Pick<Restarts, 'check'>;
}

/** What a pass has found so far. */
interface PassContext {
  /** No delivery is left half done: a new one may start. */
  free: boolean;
  /** The message to deliver now. */
  best: Waiting | null;
  /** Set when the pass is over: true when it did something another pass should follow at once. */
  done: boolean | null;
}

/** One stage of a pass (steering's Stage, stage.ts, is another thing: what a person's requests may use). */
type PassStage = (p: PassParts, ctx: PassContext) => Promise<unknown>;

/** What the agents' hooks reported (receipts, turn ends): handled first. */
const readHooks: PassStage = (p) => p.receipts.run();

/** Who waits at a dialog (dialogs.ts): the screens that are due, and the conversation's `blocked`, before anything is typed. */
const watchDialogs: PassStage = (p) => p.dialogs.run();

/** A cut-short delivery goes first; until it is done nothing else is delivered (but bad files are still rejected). */
const finishCutShort: PassStage = async (p, ctx) => {
  ctx.free = !p.courier.busy || (await p.courier.advance());
};

/** A person's requests are answered even while a delivery is stuck (each says what it cannot do now). */
const answerRequests: PassStage = async (p) => p.steering.expecting && (await p.steering.answer());

/** A person's notes to every agent that a pane of this machine still waits for (notes.ts). */
const deliverNotes: PassStage = async (p, ctx) => ctx.free && (await p.notes.run());

/** Reminders, stalls and the end by max_duration (conductor.ts). */
const conduct: PassStage = async (p, ctx) => ctx.free && (await p.conductor.conduct());

/** A stamped message whose receipt never came though its agent's hooks work: typed again if provably lost. */
const retypeLost: PassStage = async (p, ctx) => {
  const lost = ctx.free ? p.receipts.suspect() : undefined;
  if (lost && (await retype(p, lost))) ctx.done = true;
};

/** The turn holder started again (a reboot, `down` and `up`, a pane restarted): told what it owes (restarted.ts). */
const tellRestarted: PassStage = async (p, ctx) => {
  if (ctx.free && (await p.restarts.check())) ctx.done = true;
};

/** Every queue looked at: held and rejected reported, the message whose turn it is found (scan.ts). */
const scanQueues: PassStage = async (p, ctx) => {
  ctx.best = await p.scan.next();
};

/** Senders told why their messages were rejected (rejections.ts), never while a delivery is under way. */
const tellRejected: PassStage = (p, ctx) => p.rejections.tell(ctx.free);

/** Deliver that message (or hold it for a person's approval in moderated mode), unless a delivery is stuck. */
const takeBest: PassStage = async (p, ctx) => {
  const best = ctx.best;
  if (!ctx.free || !best) ctx.done = false;
  else if (p.config.turns.moderated) ctx.done = await moderate(p, best);
  else ctx.done = (await p.taker.take(best)).kind !== 'unavailable';
};

/** Moderated mode: the message goes to the approval queue, or waits (held once) while its sender has one there. */
async function moderate(p: PassParts, w: Waiting): Promise<boolean> {
  if ((await p.bus.moderate(w)) !== 'held') return true;
  await p.scan.held(w, `${w.direction.from} already has a message waiting for approval`);
  return false;
}

const STAGES: readonly PassStage[] = [
  readHooks,
  watchDialogs,
  finishCutShort,
  answerRequests,
  deliverNotes,
  conduct,
  retypeLost,
  tellRestarted,
  scanQueues,
  tellRejected,
  takeBest,
];

export class Pass {
  constructor(private readonly p: PassParts) {}

  /** True when it did something another pass should follow at once. */
  async run(): Promise<boolean> {
    const ctx: PassContext = { free: true, best: null, done: null };
    for (const stage of STAGES) {
      await stage(this.p, ctx);
      if (ctx.done !== null) return ctx.done;
    }
    return false;
  }
}

/**
 * Type again, flagged `(redelivered)`, once, a message whose receipt never came though its agent's hooks work
 * (unconfirmed.ts), only when it provably did not arrive: still the last message, its receiver holding the turn
 * and having answered nothing, its input box empty (the text is not there to submit). Else it is only reported.
 */
async function retype(p: PassParts, s: { id: string; agent: string }): Promise<boolean> {
  const st = p.bus.state();
  const record = await p.bus.record(s.id);
  if (!record || record.received || record.receiver !== s.agent) return false;
  if (st.last_message_id !== s.id || st.current_turn !== s.agent || st.finished || st.paused) return false;
  if ((await p.bus.waitingFrom(s.agent)) > 0) return false; // it answered: it had the message
  const ready = await p.typing.gate(s.agent); // an empty box, no dialog, no text of anyone's
  if (!ready.ok) {
    p.log.warn(`${s.id} → ${s.agent}: not typed again (${ready.reason})`);
    return false;
  }
  p.log.warn(
    `${s.id} → ${s.agent}: its model never got it (no prompt from its hook, an empty box, no answer); typing it again, flagged`,
  );
  const now = performance.now();
  p.courier.begin(record, { firstSeen: now, turnSince: now }, { typed: true });
  await p.courier.advance(ready.pane);
  return true;
}
