/**
 * A person's note to every agent (`baton send --to all`, docs/protocol.md §11): typed once into each pane when it
 * can take it; no turn moves, no `msg_` ID. Archived once as user_NNNN with `receiver: "all"` and each agent's
 * delivery on it (`deliveries`), so a daemon that starts, or another machine's, carries on until every pane has it.
 * An entry is written with `at: null` before the typing and the time after: a daemon killed between types it again
 * flagged `(redelivered)`, never silently twice. Stamped at the first pane that got it. Across machines, the one
 * that took the request archives it and asks each other's daemon (a `note` request) to type it there.
 */
import type { Events, PersonMessages, Records, Requests, TurnState } from '../bus/bus.js';
import { isLocal } from '../config/config.js';
import { noteHint } from '../core/compose.js';
import { fresh } from '../core/delivery.js';
import type { ArchiveRecord, NoteDelivery } from '../core/record.js';
import { personRecord, stamped } from '../core/record.js';
import type { Reply } from '../core/requests.js';
import { type PersonRecords, settled } from './catch-up.js';
import { type Pipeline, why } from './pipeline.js';
import type { Uses } from './context.js';

export interface NotesParts extends Uses<'config' | 'log' | 'oneshot'> {
  bus: PersonMessages & Records & Requests & Events & TurnState;
  typing: Pick<Pipeline, 'gate' | 'advance'>;
  /** A person's records (catch-up.ts), for the notes some pane still waits for. */
  people: PersonRecords;
}

/** Who got a note and who still waits for it (and why), for the person who sent it. */
export type NoteOutcome = { delivered: string[]; waiting: Record<string, string> };

export class Notes {
  /** A note may be waiting for a pane of this machine: set at start, by a note, while one waits. */
  private looking = true;

  constructor(private readonly p: NotesParts) {}

  /** `baton send --to all`: archive the note once (a request answered again finds it), type it where it can go. */
  async send(m: { content: string; type: string }, request: string): Promise<Reply> {
    const { bus } = this.p;
    const receivedAt = new Date().toISOString();
    const record =
      (await bus.findPersonMessage(request)) ??
      (await bus.archivePersonMessage((id) =>
        personRecord({ id, to: 'all', content: m.content, type: m.type, request, receivedAt }),
      ));
    this.looking = true;
    const outcome = await this.deliver(record, this.p.config.order);
    return noteReply(record.id, outcome, this.p.oneshot);
  }

  /** Another machine's daemon asks this one to type note `id` into its agent `to`. */
  async forwarded(id: string, to: string): Promise<Reply> {
    const record = await this.p.bus.record(id);
    if (record?.receiver !== 'all') return { ok: false, message: `${id} is not a note to all` };
    this.looking = true;
    return noteReply(id, await this.deliver(record, [to]), this.p.oneshot);
  }

  /** Type every note a pane of this machine still waits for, where it can go now. True when one was typed. */
  async run(): Promise<boolean> {
    if (!this.looking || this.p.oneshot) return false;
    const { order } = this.p.config;
    const open = (await this.p.people.all()).filter((r) => r.receiver === 'all' && !settled(r, order));
    let typed = false;
    let waits = false;
    for (const r of open) {
      const mine = order.filter((a) => isLocal(this.p.config, a) && !r.deliveries?.[a]?.at);
      const o = await this.deliver(r, mine, false);
      typed ||= o.delivered.length > 0;
      waits ||= Object.keys(o.waiting).length > 0;
    }
    this.looking = waits; // the panes that could not take it are tried again (availability's backoff wakes the loop)
    return typed;
  }

  /** Type `r` into each of `agents` that has not got it: this machine's here, the others' by their daemons. */
  private async deliver(r: ArchiveRecord, agents: readonly string[], forward = true): Promise<NoteOutcome> {
    const out: NoteOutcome = { delivered: [], waiting: {} };
    let record = r;
    for (const a of agents) {
      if (record.deliveries?.[a]?.at) {
        out.delivered.push(a);
        continue;
      }
      if (!isLocal(this.p.config, a)) {
        if (forward) await this.p.bus.forward({ op: 'note', id: record.id, to: a });
        out.waiting[a] = `runs on ${this.p.config.agents[a]!.host}: its daemon types it`;
        continue;
      }
      const why = await this.typeInto(record, a);
      if (why) out.waiting[a] = why;
      else out.delivered.push(a);
      record = (await this.p.bus.record(record.id)) ?? record;
    }
    return out;
  }

  /** One agent's delivery: null when typed, else why not (it waits). */
  private async typeInto(r: ArchiveRecord, agentName: string): Promise<string | null> {
    const { bus, typing } = this.p;
    const before = r.deliveries?.[agentName];
    const redelivered = before !== undefined; // its typing began before and was never confirmed
    // Begun before: its paste may still sit in the box, unsubmitted (leftover.ts).
    const ready = await typing.gate(agentName, redelivered ? { id: r.id, inBox: true } : undefined);
    if (!ready.ok) return ready.reason;
    await bus.amend(r.id, { deliveries: { [agentName]: { at: null, ...(redelivered ? { redelivered } : {}) } } });
    const envelope = { id: r.id, from: 'user', to: agentName, reply_to: null, type: r.type, content: r.content };
    const text = { envelope, hint: noteHint(bus.state()) };
    const out = await typing.advance({ to: agentName, text, pane: ready.pane }, fresh(redelivered));
    if (out.stop) return `its typing was not confirmed (${why(out.stop)})`;
    const typed = out.typing;
    const now = (await bus.record(r.id)) ?? r;
    const at = new Date().toISOString();
    const entry: NoteDelivery = { ...now.deliveries?.[agentName], at, confirmed: typed.confirmation };
    await bus.amend(r.id, { deliveries: { [agentName]: entry } });
    if (!now.delivered_at) {
      const { deliveries: _kept, ...rest } = now; // stamped without them: another machine's stay as they are
      await bus.stamp(stamped(rest as ArchiveRecord, typed.confirmation, false, at));
    }
    await bus.events.emit('sent', { id: r.id, to: agentName, all: true, ...(redelivered ? { redelivered } : {}) });
    this.p.log.success(`${r.id} user → ${agentName} (a note to all)`);
    return null;
  }
}

/** The answer to `send --to all`: who got it, who waits and why; ok only when every pane got it. */
export function noteReply(id: string, o: NoteOutcome, oneshot: boolean): Reply {
  const waiting = Object.entries(o.waiting);
  const got = o.delivered.length ? `typed into ${o.delivered.join(', ')}` : 'typed into no pane yet';
  // `daemon`: a running daemon keeps trying the panes that wait (false: the next one will).
  const known = { id, delivered: o.delivered, waiting: o.waiting, daemon: !oneshot };
  if (!waiting.length) return { ok: true, message: `${id} ${got}`, ...known };
  const later = oneshot
    ? 'no daemon is running: the next one types it there ("baton up")'
    : 'baton types it there as soon as it can';
  return {
    ok: false,
    message:
      `${id} ${got}; not yet into ${waiting.map(([a, why]) => `${a} (${why})`).join(', ')}: ${later}; ` +
      'do not send it again (baton log shows it once)',
    ...known,
  };
}
