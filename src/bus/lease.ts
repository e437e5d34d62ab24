/**
 * The writer's lease: one daemon writes and types for a conversation (on the PostgreSQL bus: for one
 * machine of it) at a time, and one that lost its lease — killed, paused past it, cut off — is fenced:
 * its writes are refused by the bus, its keystrokes by tmux (terminal/fence.ts), by generation.
 */
import type { ArchiveRecord } from '../core/record.js';
import type { State } from '../core/state.js';
import type { EventLog } from './events.js';

/** Who holds (or asks for) the writer's lease. */
export interface Holder {
  pid: number;
  host: string;
  started_at: string;
  /** How many conversations the holder's process serves (`baton daemon A B C`); absent: one. */
  serves?: number;
  /** Its config's message folder: with the host, tells `baton up` the daemon is this project's (absent: older). */
  dir?: string;
}

/**
 * The right to write and type for one conversation (on the PostgreSQL bus: for one machine of it).
 * Promise: at most one live holder; a holder that stops renewing it (killed, paused) loses it to the next
 * taker after the bus's stale time.
 */
export interface Lease {
  readonly holder: Holder;
  /** One more than the holder before: every durable write checks it is still the newest. */
  readonly generation: number;
  /**
   * What its keystrokes carry (terminal/fence.ts): a tmux server option per conversation (`key`) holding the
   * newest holder's `token` (zero-padded: sorts as a number). tmux refuses an older one: a paused daemon types nothing.
   */
  readonly fence: { key: string; token: string };
  /** Called once when the lease is lost (taken over, or found compromised); nothing more may be written. */
  onLost(listener: (why: string) => void): void;
  /** Synchronous and cheap: throws FencedError when this holder may no longer write or type. */
  check(): void;
  release(): Promise<void>;
}

/** What start-up recovery found (docs/protocol.md §6): the state to run with, and a delivery cut short. */
export interface Recovered {
  state: State;
  /** An archived message never stamped delivered; `typed`: its paste may already have happened. */
  unfinished: { record: ArchiveRecord; typed: boolean } | null;
  notes: string[];
}

/** The daemon's hold on a conversation (daemon.ts): taking the lease, recovering, letting go. */
export interface Tenure {
  /**
   * Take the writer's lease. Throws LeaseHeldError when a live holder has it (naming it); waits out a
   * stale one (a holder killed or paused past the stale time) and takes it over, fencing it. `onLost` is
   * called once if the lease is lost later.
   */
  lease(holder: Holder, onLost: (why: string) => void): Promise<Lease>;
  /**
   * Reconcile the stored state with the archive (docs/protocol.md §6) and put back what a crash left half-moved:
   * then every message is in one place, the state agrees with the archive. Needs the lease. Idempotent.
   */
  recover(): Promise<Recovered>;
  /** Close what this side holds open (watchers, listening connections); the lease is released on its own. */
  close(): Promise<void>;
}

/**
 * Who holds a lease, as the storage proves it (never by looking for a process of the holder's name: a
 * cloned machine has the same name, hostname and pids): nobody; a live holder (named when known); or one
 * whose renewal stopped, which the next taker may fence.
 */
export type LeaseHolding =
  | { kind: 'free' }
  | { kind: 'alive'; holder: Holder | null }
  | { kind: 'stale'; holder: Holder | null };

export const fenceToken = (generation: number): string => String(generation).padStart(12, '0');

/** Has this holder lost the right to write (or can it not prove it now)? No lease yet: not fenced. */
export function isFenced(lease: Lease | null): boolean {
  try {
    lease?.check();
    return false;
  } catch {
    return true;
  }
}

/** The event log as a daemon writes it: nothing once it is fenced (it says why in its own log). */
export function fencedEvents(events: EventLog, lease: () => Lease | null): EventLog {
  return { emit: async (event, fields) => (isFenced(lease()) ? undefined : events.emit(event, fields)) };
}

export class LeaseHeldError extends Error {
  override name = 'LeaseHeldError';
  constructor(
    readonly where: string,
    readonly holder: Holder | null,
  ) {
    super(
      holder
        ? `another baton daemon (pid ${holder.pid} on ${holder.host}, since ${holder.started_at}) holds ${where}`
        : `another baton daemon holds ${where}`,
    );
  }
}

/**
 * A write or keystroke refused: this daemon no longer holds its lease (`lost`), or cannot prove right now
 * that it still does (not `lost`: it has not renewed it within the stale time, say after a pause; the
 * renewal that follows either proves it again or finds it lost).
 */
export class FencedError extends Error {
  override name = 'FencedError';
  constructor(
    message: string,
    readonly lost = true,
  ) {
    super(message);
  }
}
