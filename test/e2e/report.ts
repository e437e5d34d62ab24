/**
 * What the end-to-end runs print, for a person to read: how each submit was confirmed, and how long after its
 * Enter the agent's own prompt hook reported the message (Enter → receipt), from the `delivered` event's
 * `entered_at` and the archive's `received.at`. Printed, never asserted: timing on a shared machine is noise.
 */

/** "screen 5, hook 2": how often each value occurs, in order of first sight. */
export function tally(values: unknown[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
  return [...counts].map(([k, v]) => `${k} ${v}`).join(', ');
}

interface Event {
  event: string;
  id?: unknown;
  entered_at?: unknown;
}
interface Archived {
  id: string;
  received?: { at: string };
}

/** Enter → receipt in ms for each archived message with a receipt (the first Enter of its last typing). */
export function enterToReceipt(events: Event[], archive: Archived[]): number[] {
  const entered = new Map<string, number>();
  for (const e of events)
    if (e.event === 'delivered' && typeof e.id === 'string' && typeof e.entered_at === 'string')
      entered.set(e.id, Date.parse(e.entered_at));
  return archive.flatMap((r) =>
    r.received && entered.has(r.id) ? [Date.parse(r.received.at) - entered.get(r.id)!] : [],
  );
}

/** "n 12, p50 31 ms, p99 58 ms, max 58 ms" (nearest rank). */
export function spread(ms: number[]): string {
  if (!ms.length) return 'n 0';
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return `n ${s.length}, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${s[s.length - 1]} ms`;
}
