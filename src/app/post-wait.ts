/**
 * `baton post --wait` (receipts for scripts): after posting, follow the message until it reaches
 * a stage — `delivered` (stamped: typed and its submit confirmed) or `received` (the receiver's hook said its
 * model got it) — and say its ID; or say why not (rejected, timed out and what it waits for).
 */
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Archive, Listings, Liveness, Status } from '../bus/bus.js';
import { formatId } from '../core/ids.js';
import type { ArchiveRecord } from '../core/record.js';
import type { State } from '../core/state.js';

export type Stage = 'delivered' | 'received';

export type Waited = { ok: true; record: ArchiveRecord } | { ok: false; why: string; record: ArchiveRecord | null };

export interface Following {
  /** Where the message was stored (what post() returned). */
  where: string;
  /** The archive counter before it was posted: its record is a newer one. */
  after: number;
  until: Stage;
  timeoutMs: number;
}

/** Follow a posted message through the archive until it reaches `until`, is rejected, or time runs out. */
export async function followPost(bus: Archive & Listings & Status & Liveness, o: Following): Promise<Waited> {
  const { until } = o;
  const source = basename(o.where);
  const deadline = performance.now() + o.timeoutMs;
  let next = o.after + 1;
  let found: ArchiveRecord | null = null;
  for (;;) {
    // The archive grows in counter order: look only at records newer than the last one seen.
    while (!found) {
      const r = await bus.record(formatId(next));
      if (!r) break;
      if (r.source_file === source) found = r;
      else next++;
    }
    if (found) {
      found = (await bus.record(found.id)) ?? found;
      if (until === 'delivered' ? found.delivered_at : found.received) return { ok: true, record: found };
    } else {
      const rejected = (await bus.rejections(50)).items.find(
        (x) => x.file === source || x.stored_as.endsWith(`#${source}`),
      );
      if (rejected) return { ok: false, why: `rejected: ${rejected.reason}`, record: null };
    }
    if (performance.now() >= deadline) {
      const state = await bus.readState();
      const why = found ? notYet(found) : `not delivered yet (${whoHolds(state)}${await daemonNote(bus)})`;
      return { ok: false, why, record: found };
    }
    await sleep(100);
  }
}

/** An archived message that has not reached its stage: where it stopped. */
function notYet(found: ArchiveRecord): string {
  return found.delivered_at
    ? `${found.id} was delivered at ${found.delivered_at}, but no receipt from ${found.receiver}'s hooks came`
    : `${found.id} was archived but not yet delivered to ${found.receiver}`;
}

/** Why a message not archived yet waits: the conversation is over, paused, or another agent holds the turn. */
function whoHolds(state: State | null): string {
  if (state?.finished) return 'the conversation has finished';
  if (state?.paused) return 'the conversation is paused';
  return `${state?.current_turn ?? '?'} holds the turn`;
}

async function daemonNote(bus: Liveness): Promise<string> {
  return (await bus.daemon()).running ? '' : '; no daemon is running: baton up';
}
