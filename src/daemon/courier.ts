/**
 * The courier: takes one committed message into its receiver's pane through the typing pipeline (pipeline.ts),
 * phase by phase (core/delivery.ts), and stamps it delivered once the submit is confirmed. One delivery at a time.
 * Each step runs once: a retry presses only what was lost; a paste lost to a replaced pane is typed again in full,
 * flagged, never an Enter alone (a retried Enter once went alone into a new pane and was stamped delivered). A
 * fenced keystroke stops this daemon (FencedError). A failure is reported once per distinct error and retried with
 * backoff; it is never stamped. docs/decisions/0010-one-typing-pipeline.md.
 */
import { isoAt, type Clock, type Events, type Records, type TurnStep } from '../bus/bus.js';
import { replyHint } from '../core/compose.js';
import { begin, type Delivery, type Phase, type Timing, type Typing } from '../core/delivery.js';
import type { Received } from '../core/receipt.js';
import { stamped, withReceipt, type ArchiveRecord } from '../core/record.js';
import { paneRef, type PaneInfo } from '../terminal/pane.js';
import type { Pipeline } from './pipeline.js';
import type { Underway } from './underway.js';
import type { Uses } from './context.js';

export interface CourierParts extends Uses<'config' | 'log'> {
  /** The turn step's record to settle when it must wait, the stamp, and the events. */
  bus: TurnStep & Records & Events & Clock;
  typing: Pick<Pipeline, 'advance'>;
  /** Where the delivery under way is kept, for the parts that must not type into its pane meanwhile. */
  underway: Underway;
  /** Called once a delivery is stamped (the conversation may end with it). */
  delivered(record: ArchiveRecord): Promise<void>;
  /** The agents' hooks (receipts.ts): a receipt that came before the stamp goes into the record with it. */
  receipts?: {
    takeEarly(id: string): Received | undefined;
    stamped(id: string, agent: string, received: boolean): void;
    /** The text pasted for a message: its receipt is compared with all of it (a catch-up included). */
    typed?(id: string, text: string): void;
  };
  /**
   * What the receiver missed since its last turn (daemon/catch-up.ts, docs/protocol.md §11): typed after
   * the header, in the same paste. From the archive, so a message typed again carries the same.
   */
  catchUp?(record: ArchiveRecord): Promise<{ text: string; named: readonly string[] }>;
}

export class Courier {
  /** The last failure reported for the delivery, so a retry failing the same way is not logged again. */
  private lastError: string | null = null;

  constructor(private readonly p: CourierParts) {}

  private get delivery(): Delivery | null {
    return this.p.underway.delivery;
  }

  private set delivery(d: Delivery | null) {
    this.p.underway.delivery = d;
  }

  get busy(): boolean {
    return this.p.underway.busy;
  }

  /** The phase of the delivery under way, for status and tests. */
  get phase(): Phase | null {
    return this.delivery?.typing.phase ?? null;
  }

  /** A turn step was committed (or found cut short at start-up): deliver it next. */
  begin(record: ArchiveRecord, timing: Timing, opts: { typed: boolean }): void {
    this.delivery = begin(record, timing, opts);
    this.lastError = null;
  }

  /**
   * Take the delivery one phase further, as far as it goes. True once stamped; false when it must wait.
   * `checked`: its receiver's pane, as the gate has just given it (a retry asks the gate again).
   */
  async advance(checked?: PaneInfo): Promise<boolean> {
    let d = this.delivery!;
    const r = d.record;
    const { id, sender: from, receiver: to, reply_to, type, subject, content } = r;
    const job = {
      to,
      text: {
        envelope: { id, from, to, reply_to, type, subject, content },
        hint: replyHint(this.p.config, to),
        // The same for a message typed again: its receiver's place moves only past what was delivered to it.
        catchUp: async () => (await this.p.catchUp?.(r)) ?? { text: '', named: [] },
      },
      pane: checked,
      typed: (text: string) => this.p.receipts?.typed?.(id, text),
      keep: (typing: Typing) => void (d = this.set({ ...d, typing })),
    };
    const out = await this.p.typing.advance(job, d.typing);
    if (out.stop) {
      await this.p.bus.settle(); // it waits: the archive shows it meanwhile, unstamped
      return out.stop.kind === 'failed' && this.failed(out.stop.error);
    }
    const t = out.typing;
    // The pane instance that has it: an agent found in another one was started again (restarted.ts).
    const into = paneRef(out.pane);
    const done = withReceipt(
      { ...stamped(r, t.confirmation, t.redelivered, isoAt(this.p.bus.now())), typed_into: into },
      this.p.receipts?.takeEarly(id),
    );
    await this.p.bus.stamp(done);
    // Typed again after its receipt never came (pass.ts) or its agent was started again (restarted.ts):
    // stamped before, it keeps that stamp; the flag and the pane that has it now go on.
    if (r.delivered_at && t.redelivered) await this.p.bus.amend(id, { redelivered: true, typed_into: into });
    // The bundled demo agent has no hooks, whatever kind it stands in for: no receipt is awaited from it
    // (a `--kind claude` demo raised delivery_unconfirmed for every message).
    if (!out.pane.demo) this.p.receipts?.stamped(id, to, Boolean(done.received));
    this.delivery = null;
    await report(this.p, done, t, d.timing);
    await this.p.delivered(done);
    return true;
  }

  private set(d: Delivery): Delivery {
    this.delivery = d;
    return d;
  }

  /** A step failed (the pipeline has set it back as far as it must go): reported once per distinct error. */
  private async failed(error: string): Promise<false> {
    const d = this.delivery!;
    const r = d.record;
    if (this.lastError !== error) {
      this.lastError = error;
      this.p.log.warn(`${r.id} → ${r.receiver}: ${error}; will retry`);
      await this.p.bus.events.emit('delivery_failed', {
        id: r.id,
        to: r.receiver,
        error,
        pasted: d.typing.phase !== 'committed',
        entered: d.typing.phase === 'entered' || d.typing.phase === 'confirmed',
      });
    }
    return false;
  }
}

/**
 * A confirmed delivery's `delivered` (and `redelivered`) event and log line. docs/protocol.md §7's latency_ms
 * runs from first sight to the paste; a file written out of turn spent most of it held, which is not delivery
 * time (a message held 9 s for its turn was logged "msg_0009 … in 9220.9 ms", as if typing it had been slow),
 * so the two are told apart.
 */
async function report(
  p: Pick<CourierParts, 'bus' | 'log'>,
  r: ArchiveRecord,
  d: Extract<Typing, { phase: 'confirmed' }>,
  timing: Timing,
): Promise<void> {
  const round = (ms: number) => Math.round(ms * 10) / 10;
  const { firstSeen, turnSince } = timing;
  const latency = round(d.pastedAt - firstSeen);
  const held = round(Math.max(0, turnSince - firstSeen));
  const typing = round(d.pastedAt - Math.max(firstSeen, turnSince));
  const flag = d.redelivered ? { redelivered: true } : {};
  if (d.redelivered) await p.bus.events.emit('redelivered', { id: r.id, from: r.sender, to: r.receiver });
  // How the submit was confirmed on the screen (a receipt from the agent's hook may replace it on the record).
  await p.bus.events.emit('delivered', {
    id: r.id,
    from: r.sender,
    to: r.receiver,
    reply_to: r.reply_to,
    latency_ms: latency,
    held_ms: held,
    delivery_ms: typing,
    submit: d.confirmation,
    entered_at: new Date(d.enteredAt).toISOString(),
    ...flag,
  });
  const heldNote = held >= 1000 ? ` (held ${(held / 1000).toFixed(1)} s before its turn)` : '';
  p.log.success(
    `${r.id} ${r.sender} → ${r.receiver}${d.redelivered ? ' (redelivered)' : ''} in ${typing} ms${heldNote}`,
  );
}
