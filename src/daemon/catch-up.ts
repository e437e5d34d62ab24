/**
 * What the catch-up rule (core/catch-up.ts, docs/protocol.md §11) reads of the archive, through the one call every
 * bus has (a record by its ID), so both buses and every machine's daemon compute the same catch-up.
 * - The agents' messages: from the one before the message that gives the turn back, to the receiver's place (the
 *   last one stamped delivered to it): under round robin with three agents, three records.
 * - A person's messages (their topics are missed too): few, read once, then only the new ones and those not yet
 *   settled (not stamped, or a note some pane still waits for).
 */
import type { Config } from '../config/config.js';
import { type CatchUp, catchUp, isPlace } from '../core/catch-up.js';
import { formatId, parseId } from '../core/ids.js';
import type { ArchiveRecord } from '../core/record.js';

/** The one thing read: a record by its ID (Records on the daemon's side, Archive on a reader's). */
export type RecordReader = { record(id: string): Promise<ArchiveRecord | null> };

/** The agents' messages before counter `before`, newest first, back to `agent`'s place (included). */
async function sincePlace(src: RecordReader, agent: string, before: number): Promise<ArchiveRecord[]> {
  const out: ArchiveRecord[] = [];
  for (let n = before - 1; n >= 1; n--) {
    const r = await src.record(formatId(n));
    if (!r) continue; // a gap in the archive (doctor reports it): what is there still counts
    out.push(r);
    if (isPlace(r, agent)) break;
  }
  return out;
}

/** A person's note to every agent has reached them all, or a person's message is stamped. */
export const settled = (r: ArchiveRecord, agents: readonly string[]): boolean =>
  r.delivered_at !== null && (r.receiver !== 'all' || agents.every((a) => r.deliveries?.[a]?.at));

/**
 * A person's records (user_NNNN), read up to the first ID that is not there: the archive gives them in
 * order, one counter of their own (docs/protocol.md §9). Kept once settled; read again until then.
 */
export class PersonRecords {
  private readonly known: ArchiveRecord[] = [];

  constructor(
    private readonly src: RecordReader,
    private readonly agents: readonly string[],
  ) {}

  async all(): Promise<ArchiveRecord[]> {
    const last = this.known.at(-1);
    // Set aside (`up --fresh`) since: the archive starts again.
    if (last && (await this.src.record(last.id))?.received_at !== last.received_at) this.known.length = 0;
    for (const [i, r] of this.known.entries()) {
      if (settled(r, this.agents)) continue;
      const now = await this.src.record(r.id);
      if (now) this.known[i] = now;
    }
    for (;;) {
      const r = await this.src.record(formatId(this.known.length + 1, 'user'));
      if (!r) break;
      this.known.push(r);
    }
    return [...this.known];
  }
}

/** Catch-ups for one conversation, from its archive and its config's rules. */
export class CatchUps {
  private readonly people: PersonRecords;

  constructor(
    private readonly config: Pick<Config, 'order' | 'turns'>,
    private readonly src: RecordReader,
    people?: PersonRecords,
  ) {
    this.people = people ?? new PersonRecords(src, config.order);
  }

  private get off(): boolean {
    return this.config.turns.catch_up === 'off' || this.config.order.length < 3;
  }

  /** What `agent` missed before getting the message with `counter`, and the block that shows it. */
  async before(agent: string, counter: number): Promise<CatchUp> {
    const empty = { missed: [], shown: [], omitted: [], text: '' };
    if (this.off) return empty;
    const history = [...(await sincePlace(this.src, agent, counter)), ...(await this.people.all())];
    return catchUp({
      history,
      agent,
      current: formatId(counter),
      agents: this.config.order.length,
      rules: {
        mode: this.config.turns.catch_up,
        maxBytes: this.config.turns.catch_up_max_bytes,
        messageMaxBytes: this.config.turns.catch_up_message_max_bytes,
      },
    });
  }

  /** The block typed with `record` into its receiver's pane, and the IDs it names (maybe cut: shown.ts). */
  async text(record: ArchiveRecord): Promise<{ text: string; named: string[] }> {
    const n = parseId(record.id);
    if (n === null) return { text: '', named: [] };
    const c = await this.before(record.receiver, n);
    return { text: c.text, named: c.text ? c.missed.map((r) => r.id) : [] };
  }

  /** How many messages each agent would be caught up on if it got the turn after message `counter` (status). */
  async counts(counter: number): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const a of this.config.order) out[a] = this.off ? 0 : (await this.before(a, counter + 1)).missed.length;
    return out;
  }
}
