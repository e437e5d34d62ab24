/**
 * Change hints (pg-boss's notifier pattern): the bus says that something may have changed, never what.
 * The daemon also re-scans on a timer, so a missed hint may delay a delivery, never lose it.
 */

/** New or changed messages (in one direction, when the bus knows which), or a person's request. */
export type Hint = { kind: 'messages'; direction?: string } | { kind: 'requests' };

/** The daemon's lifecycle (daemon.ts) watches for changes and re-scans on its timer. */
export interface Hints {
  /** Hints to `hint` (watchers; PostgreSQL: LISTEN, made again on a drop, hinting all). May be lost or repeated. */
  watch(hint: (h: Hint) => void): Promise<void>;
  /** Stop delivering hints. Safe to call when not watching, and more than once. */
  unwatch(): Promise<void>;
  /**
   * Look at everything again (the timer behind the hints): what a hint missed is found by the next
   * queues(). Also drops replies to requests nobody collected. Needs the lease (FencedError without it).
   */
  rescan(): Promise<void>;
}
