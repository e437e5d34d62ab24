/**
 * `baton export` and the dashboard's download (docs/protocol.md §12): the conversation as one document — every
 * record in delivery order, the catch-up typed with each (daemon/catch-up.ts's rule), a person's notes and
 * answers, the outcome — read through the bus's reader parts, so both buses export the same.
 */
import type { Archive, EventFeed, Status } from '../../bus/bus.js';
import type { Config } from '../../config/config.js';
import type { State } from '../../core/state.js';
import type { ArchiveRecord } from '../../core/record.js';
import { CatchUps } from '../../daemon/catch-up.js';
import { transcript } from '../transcript.js';

/** A person's answer to an agent's dialog (an `answered` event), as the log has it. */
interface Answer {
  ts: string;
  agent: string;
  choice: string;
  by: string | null;
}

export interface ExportDoc {
  /** Where the conversation lives (a folder, or a database and conversation name). */
  where: string;
  policy: string;
  agents: string[];
  exported_at: string;
  state: State | null;
  /** Every record (agents' and a person's), in the order they reached the panes. */
  records: ArchiveRecord[];
  /** The catch-up block typed with a message (by its ID), where there was one. */
  catch_ups: Record<string, string>;
  answers: Answer[];
  /** The closing agent's reply (type `outcome`), when there is one. */
  outcome: ArchiveRecord | null;
}

export type ExportSource = Archive & EventFeed & Pick<Status, 'where' | 'readState'>;

export async function gatherExport(bus: ExportSource, config: Config, now: Date): Promise<ExportDoc> {
  const records = await transcript(bus);
  const catchUps = new CatchUps(config, bus);
  const catch_ups: Record<string, string> = {};
  for (const r of records) {
    if (!r.id.startsWith('msg_')) continue;
    const { text } = await catchUps.text(r);
    if (text) catch_ups[r.id] = text;
  }
  return {
    where: bus.where,
    policy: config.turns.policy,
    agents: [...config.order],
    exported_at: now.toISOString(),
    state: await bus.readState().catch(() => null),
    records,
    catch_ups,
    answers: await answers(bus),
    outcome: [...records].reverse().find((r) => r.type === 'outcome') ?? null,
  };
}

/** The `answered` events of the log, oldest first (none where dialogs were never answered). */
async function answers(bus: EventFeed): Promise<Answer[]> {
  const out: Answer[] = [];
  const head = await bus.events.head();
  if (head.end === 0) return out;
  const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
  await bus.events.read(head.gen, 0, head.end, (e) => {
    if (e.event !== 'answered') return;
    out.push({ ts: str(e.ts), agent: str(e.agent), choice: str(e.choice), by: e.by ? str(e.by) : null });
  });
  return out;
}
