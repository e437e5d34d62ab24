/**
 * The waits of the daemon, its buses and its locks, in one place so a test runs them shorter and waits for
 * its condition (as literals in a dozen files they were 34 sleeps, 58 s of a 12-minute CI run).
 * BATON_TIME_SCALE (environment only, never a config file) multiplies them all: 0.25 makes the lock stale
 * after 750 ms. It only shortens (0.05–1, else 1); every process sharing a lock or lease needs the same scale.
 * For tests only: a scaled lease gives a daemon stalled by a loaded machine less time before a takeover.
 */

/** The times at scale 1: what runs in production. */
export const DEFAULT_TIMING = {
  /** A lock directory (files bus's lease, the machine daemon's lock) untouched this long is stale. */
  lockStaleMs: 3000,
  /** The machine's registry lock (held for one edit) is taken over once untouched this long. */
  registryLockStaleMs: 5000,
  /** The PostgreSQL lease's heartbeat, and how old it may get before another daemon may take over. */
  leaseHeartbeatMs: 1000,
  leaseStaleMs: 5000,
  /** A daemon's rescan of its folders, requests and config — the safety net behind the hints. */
  rescanMs: 2000,
  /** A daemon whose bus (the database) cannot be reached tries to start again this often. */
  busRetryMs: 2000,
  /** The receipts' spools looked at again even when no watcher said so. */
  receiptRescanMs: 2000,
  /** How long after its stamp a delivery's hook receipt may take before it is reported missing. */
  receiptBoundMs: 30_000,
  /** An unavailable pane is tried again after these (the last repeats). */
  paneRetryMs: [250, 500, 1000, 2000, 4000, 5000] as readonly number[],
  /** A message the relay could not store is tried again after the first, doubling up to the most. */
  relayRetryFirstMs: 250,
  relayRetryMaxMs: 5000,
  /** Rejections gathered this long into one notice to their sender, notices at least this far apart. */
  rejectionGatherMs: 1000,
  rejectionSpacingMs: 10_000,
};
export type Timing = Readonly<typeof DEFAULT_TIMING>;

/** The scale BATON_TIME_SCALE asks for: a number in 0.05–1, else 1. */
export function timeScale(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env.BATON_TIME_SCALE);
  return Number.isFinite(s) && s >= 0.05 && s <= 1 ? s : 1;
}

/** The times at `scale` (each at least 1 ms). */
export function timingAt(scale: number): Timing {
  const at = (ms: number) => Math.max(1, Math.round(ms * scale));
  const out: Record<string, number | readonly number[]> = {};
  for (const [k, v] of Object.entries(DEFAULT_TIMING)) out[k] = typeof v === 'number' ? at(v) : v.map(at);
  return out as unknown as Timing;
}

/** This process's times, fixed when it starts; BATON_RECEIPT_BOUND_MS (tests set it) sets the receipt bound alone. */
const bound = Number(process.env.BATON_RECEIPT_BOUND_MS);
export const timing: Timing = { ...timingAt(timeScale()), ...(bound > 0 ? { receiptBoundMs: bound } : {}) };
