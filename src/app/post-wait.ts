/**
 * `baton post --wait` (issue 16, receipts for scripts): after posting, follow the message until it reaches
 * a stage — `delivered` (stamped: typed and its submit confirmed) or `received` (the receiver's hook said its
 * model got it) — and say its ID; or say why not (rejected, timed out and what it waits for).
 */
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BusReader } from '../bus/bus.js';
import { formatId } from '../core/ids.js';
import type { ArchiveRecord } from '../core/record.js';

export type Stage = 'delivered' | 'received';

export type Waited = { ok: true; record: ArchiveRecord } | { ok: false; why: string; record: ArchiveRecord | null };

/** Follow the message stored at `where` (what post() returned) from archive counter `after` on. */
export async function followPost(
  bus: BusReader,
  where: string,
  after: number,
  until: Stage,
  timeoutMs: number,
): Promise<Waited> {
  const source = basename(where);
  const deadline = performance.now() + timeoutMs;
  let next = after + 1;
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
      const why = found
        ? `${found.id} was ${found.delivered_at ? `delivered at ${found.delivered_at}, but no receipt from ${found.receiver}'s hooks came` : `archived but not yet delivered to ${found.receiver}`}`
        : `not delivered yet (${state?.finished ? 'the conversation has finished' : state?.paused ? 'the conversation is paused' : `${state?.current_turn ?? '?'} holds the turn`}${(await bus.daemon()).running ? '' : '; no daemon is running: baton up'})`;
      return { ok: false, why, record: found };
    }
    await sleep(100);
  }
}
