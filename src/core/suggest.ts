/**
 * "Did you mean …?" for a mistyped command or option (`up --dmeo` got a 20-line help): the closest candidate by
 * edit distance (a swap of neighbours is one edit: `stauts` → `status`), or null when none is close enough.
 */

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate closest to `word`, if within a third of its length (at least 1, at most 3 edits). */
export function closest(word: string, candidates: readonly string[]): string | null {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const dist = editDistance(word.toLowerCase(), c.toLowerCase());
    if (dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  // A prefix is a likely typo too (`--fol` for `--follow`).
  const prefixed = candidates.filter((c) => word.length >= 2 && c.startsWith(word));
  if (bestDistance > limit && prefixed.length === 1) return prefixed[0]!;
  return bestDistance <= limit ? best : null;
}
