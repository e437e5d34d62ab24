/**
 * Start-up reconciliation of state.json and claimed files with the archive on the files bus, so a daemon
 * killed at any step of a delivery (core/delivery.ts; the claim and state steps of turn-step.ts, the record
 * state.json holds until the stamp: held.ts) resumes without losing or silently repeating a message. (What a
 * rejection cut short left, the intake puts right: folders/intake.ts.)
 */
import { readdir, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import { formatId, parseId } from '../../core/ids.js';
import { StateError, type State } from '../../core/state.js';
import { initialState } from '../../core/turns.js';
import type { ArchiveView, Recovered } from '../bus.js';
import { archiveViewOf } from '../reader.js';
import { archivedCounters, readRecord } from './archive.js';
import { listClaims, type Claim } from './claims.js';
import { moveNoClobber } from '../../lib/fsx.js';
import type { Layout } from './layout.js';
import { archiveHeld, heldRecord } from './held.js';
import { readStored } from './state-file.js';

export interface FileRecovery extends Recovered {
  /** Whether state.json must be written (it was missing or lagged the archive). */
  stateChanged: boolean;
}

/** What the archive says the conversation's state is (archiveViewOf), with the record state.json holds back. */
export async function readArchiveView(config: Pick<Config, 'firstTurn'>, l: Layout): Promise<ArchiveView> {
  const counters = await archivedCounters(l.archive);
  const held = await heldRecord(l);
  if (held) counters.push(parseId(held.id)!);
  const n = counters.at(-1) ?? 0;
  const last = held ?? (n ? await readRecord(l.archive, formatId(n)) : null);
  if (n && !last) throw new StateError(`${join(l.archive, formatId(n))}.json cannot be read`);
  return archiveViewOf(n, counters.length, last, config.firstTurn);
}

export async function recover(config: Config, l: Layout): Promise<FileRecovery> {
  const kept = await readStored(l.state);
  const stored = kept?.state ?? null;
  // Committed, maybe typed, not archived: archived now, so its claim is a copy and its delivery is finished.
  const held = await archiveHeld(l, kept);
  const notes = held ? [`${held.id} was being delivered when the daemon stopped; it is typed again, flagged`] : [];
  notes.push(...(await recoverClaims(config, l)));
  const { n, last, state: derived, gaps } = await readArchiveView(config, l);
  if (gaps) notes.push(gaps);

  let state = stored ?? initialState(config.firstTurn);
  if (!Object.hasOwn(config.agents, state.current_turn)) {
    throw new StateError(
      `${l.state}: current_turn "${state.current_turn}" is not an agent of this config ` +
        '(baton doctor --repair rebuilds it from the archive)',
    );
  }
  if (n < state.message_counter) {
    throw new StateError(
      `${l.state} is ahead of the archive ` +
        `(message_counter ${state.message_counter}, archive ends at ${n ? formatId(n) : 'nothing'}); ` +
        'if archive records were removed on purpose, baton doctor --repair rebuilds state.json from what is left',
    );
  }
  // Missing, or naming a record held back (archived above, or already): written again, without it.
  let stateChanged = stored === null || !!kept?.delivering;
  if (!last) return { state, stateChanged, unfinished: null, notes };

  if (!Object.hasOwn(config.agents, last.receiver) || !config.directions.some((d) => d.name === last.direction)) {
    throw new StateError(
      `${last.id} in ${l.archive} went ${last.direction} to "${last.receiver}", which this config no longer has; ` +
        'restore that agent and folder, or start a new conversation with "baton up --fresh"',
    );
  }
  // Archive one ahead of state: an older baton (it archived before writing state.json) killed between the
  // two, so before the paste.
  const lagsByOne = stored !== null && n === state.message_counter + 1 && !last.delivered_at;
  const contradiction = stored === null ? null : contradicts(stored, derived, lagsByOne);
  if (contradiction) {
    // Such a state was once accepted, and the same agent could speak twice. The archive is the record.
    throw new StateError(
      `${l.state} contradicts the archive: ${contradiction}. ` +
        'The daemon will not guess the turn: "baton doctor --repair" rebuilds state.json from the archive',
    );
  }
  if (n !== state.message_counter || state.last_message_id !== last.id) {
    notes.push(`state.json rebuilt from ${last.id} (it said ${state.last_message_id ?? 'nothing'})`);
    state = { ...state, ...derived };
    stateChanged = true;
  }
  const unfinished = last.delivered_at ? null : { record: last, typed: !lagsByOne };
  return { state, stateChanged, unfinished, notes };
}

/**
 * Why a stored state cannot be one a crash left (docs/protocol.md §6: it agrees with the archive, or lags
 * it by the one record a crash archived but never got to typing), or null when it can.
 */
function contradicts(stored: State, derived: State, lagsByOne: boolean): string | null {
  if (
    lagsByOne &&
    stored.last_message_id === (derived.message_counter > 1 ? formatId(derived.message_counter - 1) : null)
  )
    return null;
  const keys = ['message_counter', 'last_message_id', 'current_turn', 'pending_reply_to'] as const;
  const wrong = keys.filter((k) => stored[k] !== derived[k]);
  return wrong.length
    ? wrong
        .map((k) => `${k} is ${JSON.stringify(stored[k])}, the archive says ${JSON.stringify(derived[k])}`)
        .join('; ')
    : null;
}

/**
 * A claim whose ID is archived is a leftover copy: removed. Any other claim was cut short before its
 * archive record existed: the file goes back to its inbox, same name. Both layouts (claims.ts):
 * `.claimed/<direction>/<id>.<name>` and `.claimed/<direction>/<id>/<name>`.
 */
async function recoverClaims(config: Config, l: Layout): Promise<string[]> {
  const notes: string[] = [];
  // Only a record that is not there means "not archived": one that cannot be read (EACCES, EIO, torn) stops
  // the recovery with the claim in place — put back, it would be typed again under the next ID.
  const archived = async (id: string) => (await readRecord(l.archive, id)) !== null;
  for (const d of config.directions) {
    const base = join(l.claims, d.name);
    let claims: ReturnType<typeof listClaims>;
    try {
      claims = listClaims(base);
    } catch {
      continue;
    }
    if (!claims) continue;
    const settle = async (c: Claim) => {
      if (await archived(c.id)) {
        // A copy of the archived message.
        await unlink(c.path).catch(() => notes.push(`cannot remove ${c.path}`));
        return;
      }
      const back = await moveNoClobber(c.path, d.dir, c.name);
      notes.push(`${d.name}/${back} was being taken when the daemon stopped; it is back in its folder`);
    };
    for (const c of claims.flat) await settle(c);
    for (const id of claims.folders) {
      const dir = join(base, id);
      for (const name of await readdir(dir).catch(() => [] as string[]))
        await settle({ path: join(dir, name), id, name });
      await rmdir(dir).catch(() => {});
    }
  }
  return notes;
}
