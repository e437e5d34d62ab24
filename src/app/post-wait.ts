/**
 * `baton post --wait`: follow the post by the name it was stored under until `delivered` or `received`, or say
 * why not. Any record not seen before the post is looked at, whatever the counters (walking by counter hung when
 * a person deleted the newest record); an unreachable bus is waited for, up to the same time.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Archive, Listings, Liveness, Status } from '../bus/bus.js';
import { isBusUnavailable } from '../bus/open.js';
import type { Direction } from '../config/config.js';
import type { ArchiveRecord } from '../core/record.js';
import type { State } from '../core/state.js';

type Stage = 'delivered' | 'received';

export type Waited = { ok: true; record: ArchiveRecord } | { ok: false; why: string; record: ArchiveRecord | null };

export type FollowBus = Archive & Listings & Status & Liveness;

/** A post to follow: what it was stored as. */
interface PostRef {
  direction: Direction;
  /** Its name: the archive record's `source_file`, its rejection's `file`. */
  name: string;
  /** Where it went (a file's path when it went into a folder). */
  where: string;
  via: 'folder' | 'database';
}

export interface Following {
  post: PostRef;
  /** The archive's IDs before it was posted; null when the bus could not be read then (every ID is new). */
  before: ReadonlySet<string> | null;
  until: Stage;
  timeoutMs: number;
}

const EVERY_MS = 150;

/** The archive's IDs now, to tell a record made after the post from one made before; null when unreadable. */
export async function archivedIds(bus: Archive): Promise<Set<string> | null> {
  try {
    return new Set(await bus.recordIds());
  } catch (err) {
    if (isBusUnavailable(err)) return null;
    throw err;
  }
}

/** Follow a posted message until it reaches `until`, is rejected, or time runs out. */
export async function followPost(bus: FollowBus, o: Following): Promise<Waited> {
  const deadline = performance.now() + o.timeoutMs;
  const seen = new Set(o.before ?? []);
  let found: ArchiveRecord | null = null;
  let away: { since: Date; error: string } | null = null;
  for (;;) {
    try {
      found = found ? ((await bus.record(found.id)) ?? found) : await findRecord(bus, o.post, seen);
      away = null;
      if (found && (o.until === 'delivered' ? found.delivered_at : found.received)) return { ok: true, record: found };
      if (!found) {
        const why = await rejection(bus, o.post);
        if (why !== null) return { ok: false, why: `rejected: ${why}`, record: null };
      }
      if (performance.now() >= deadline) return { ok: false, why: await notYet(bus, o.post, found), record: found };
    } catch (err) {
      if (!isBusUnavailable(err)) throw err;
      away ??= { since: new Date(), error: (err as Error).message };
      if (performance.now() >= deadline) return { ok: false, why: unreachable(o.post, found, away), record: found };
    }
    await sleep(EVERY_MS);
  }
}

/** Its archive record among those not looked at yet (the newest first), or null. */
async function findRecord(bus: Archive, post: PostRef, seen: Set<string>): Promise<ArchiveRecord | null> {
  const fresh = (await bus.recordIds()).filter((id) => !seen.has(id) && id.startsWith('msg_'));
  fresh.sort((a, b) => b.length - a.length || (a < b ? 1 : -1));
  for (const id of fresh) {
    const r = await bus.record(id);
    if (!r) continue; // being written: looked at again next time
    seen.add(id);
    if (r.source_file === post.name && r.direction === post.direction.name) return r;
  }
  return null;
}

async function rejection(bus: Listings, post: PostRef): Promise<string | null> {
  const hit = (await bus.rejections(50)).items.find(
    (x) => x.file === post.name && (x.direction === null || x.direction === post.direction.name),
  );
  return hit ? (hit.reason ?? 'no reason was written') : null;
}

/** Where the message is when the time runs out, and why it is there. */
async function notYet(bus: Status & Liveness, post: PostRef, found: ArchiveRecord | null): Promise<string> {
  if (found)
    return found.delivered_at
      ? `${found.id} was delivered at ${found.delivered_at}, but no receipt from ${found.receiver}'s hooks came`
      : `${found.id} was archived but not yet delivered to ${found.receiver}`;
  const daemon = (await bus.daemon()).running;
  if (post.via === 'folder' && existsSync(post.where))
    return `not delivered yet: it waits in ${post.direction.name} on this machine${
      daemon ? ` (${whoHolds(await bus.readState())})` : '; no daemon is running on this machine: baton up'
    }`;
  return `not delivered yet (${whoHolds(await bus.readState())}${daemon ? '' : '; no daemon is running: baton up'})`;
}

function unreachable(post: PostRef, found: ArchiveRecord | null, away: { since: Date; error: string }): string {
  const where = found
    ? `${found.id} was archived; `
    : post.via === 'folder' && existsSync(post.where)
      ? `it waits in ${post.direction.name} on this machine; `
      : '';
  return `not delivered yet: ${where}the conversation could not be read since ${away.since.toISOString()} (${away.error})`;
}

/** Why a message not archived yet waits: the conversation is over, paused, or another agent holds the turn. */
function whoHolds(state: State | null): string {
  if (state?.finished) return 'the conversation has finished';
  if (state?.paused) return 'the conversation is paused';
  return `${state?.current_turn ?? '?'} holds the turn`;
}
