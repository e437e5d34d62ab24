/**
 * What the PostgreSQL bus's rows mean, shared by its daemon side and its read side: a waiting row's
 * name (its sequence number first, so names sort in the order messages arrived, across directions, as
 * the files bus's `msg_<ns>.json` names do), a body checked as an agent's message, the lease key.
 */
import { hostOf, isLocal, type Config, type Direction } from '../../config/config.js';
import type { Request } from '../../core/requests.js';
import type { Queue, Waiting } from '../bus.js';
import { checkText } from '../folders/outbox.js';
import { checkState, type State } from '../../core/state.js';
import { channelOf } from './hints.js';
import { sqlFor, type Sql } from './sql/index.js';
import type { WaitingRow } from './sql/waiting.js';

export type { WaitingRow };

/** One conversation of one database as this machine sees it. */
export interface Pg {
  url: string;
  conversation: string;
  host: string;
  /** Its schema's statements, built once per schema (sql/index.ts). */
  sql: Sql;
  /** Its NOTIFY channel, distinct per schema. */
  channel: string;
}

export function pgOf(t: { url: string; conversation: string; host: string; schema: string }): Pg {
  const { url, conversation, host } = t;
  const sql = sqlFor(t.schema);
  return { url, conversation, host, sql, channel: channelOf(sql.scoped(conversation)) };
}

export const waitingName = (seq: string | number, file: string | null): string =>
  `${String(seq).padStart(10, '0')}.${file ?? 'posted.json'}`;
export const seqOf = (name: string): number => Number.parseInt(name, 10);
/** The name its sender gave a waiting row's message (`waitingName`'s file), as a rejection names it. */
export const fileOf = (name: string): string => name.replace(/^\d{10,}\./, '');

export const stateOf = (raw: unknown, pg: Pg): State =>
  checkState(raw, `the state of conversation "${pg.conversation}"`);

/** The directions whose receiver is on this machine: the only ones its daemon delivers. */
export const deliveredHere = (config: Config): Direction[] => config.directions.filter((d) => isLocal(config, d.to));
/** The directions whose sender is on this machine: the folders its daemon relays. */
export const relayedHere = (config: Config): Direction[] => config.directions.filter((d) => isLocal(config, d.from));

/**
 * The machine whose daemon answers a request: the agent's for a message or a notice, the receiver's for
 * an approval or a refusal, else the turn holder's (ending, pausing, resuming, a kick-off).
 */
export function requestHost(config: Config, request: Request, turnHolder: string | undefined): string {
  if ('to' in request) return hostOf(config, request.to);
  const file = request.op === 'reject' || request.op === 'approve' ? request.file : undefined;
  if (file) return hostOf(config, config.directions.find((d) => file.startsWith(`${d.name}/`))?.to);
  return hostOf(config, turnHolder);
}

/**
 * The waiting rows a daemon delivers, as Waiting items it keeps between passes (when each was first
 * seen: the same message is the same item, with the same key, at every look). A body that is not a
 * valid message is handed back to be rejected with its reason (a post is checked here, once).
 */
export class WaitingRows {
  private readonly seen = new Map<number, Waiting>();

  constructor(
    private readonly here: Direction[],
    private readonly maxBytes: number,
  ) {}

  examine(rows: WaitingRow[]): { queues: Queue[]; invalid: Array<[Waiting, string]> } {
    const now = performance.now();
    const present = new Set<number>();
    const invalid: Array<[Waiting, string]> = [];
    const queues = new Map(this.here.map((d) => [d.name, { direction: d, items: [] as Waiting[] }]));
    for (const r of rows) {
      const seq = Number(r.seq);
      const d = this.here.find((x) => x.name === r.direction)!;
      let w = this.seen.get(seq);
      if (!w) {
        const checked = checkText(r.body, d, this.maxBytes);
        w = {
          key: String(seq),
          name: waitingName(seq, r.file),
          direction: d,
          firstSeen: now,
          ready: true,
          message: checked.ok ? checked.message : null,
        };
        if (!checked.ok) {
          invalid.push([w, checked.reason]);
          continue;
        }
        this.seen.set(seq, w);
      }
      present.add(seq);
      queues.get(d.name)!.items.push(w);
    }
    for (const k of this.seen.keys()) if (!present.has(k)) this.seen.delete(k);
    return { queues: [...queues.values()], invalid };
  }
}
