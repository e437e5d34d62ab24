/** zod issues as one line each, naming the key path (`agents.claude1.kind: Invalid option …`). */
import type { z } from 'zod';
import { closest } from './suggest.js';

/** `known`: the keys a schema takes at a path, so a mistyped one (`turns.max_turn`) gets a "did you mean". */
export function formatIssues(
  issues: readonly z.core.$ZodIssue[],
  known?: (path: readonly PropertyKey[]) => readonly string[],
): string[] {
  return issues.map((issue) => {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const candidates = known?.(issue.path) ?? [];
      return issue.keys
        .map((k) => {
          const guess = closest(k, candidates);
          return `${at ? `${at}.` : ''}${k}: unknown key${guess ? ` — did you mean ${at ? `${at}.` : ''}${guess}?` : ''}`;
        })
        .join('; ');
    }
    if (issue.code === 'invalid_key') {
      // A record key (agent or folder name) failed its own schema: say why, not just "invalid key".
      return `${at}: ${issue.issues.map((i) => i.message).join('; ') || issue.message}`;
    }
    return `${at || '(top level)'}: ${issue.message}`;
  });
}

/** A zod schema's own keys at `path`: through optional, default and prefault wrappers, objects, records and arrays. */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  type Def = {
    type: string;
    innerType?: z.ZodType;
    shape?: Record<string, z.ZodType>;
    valueType?: z.ZodType;
    element?: z.ZodType;
  };
  const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
  const unwrap = (s: z.ZodType): z.ZodType => {
    let d = defOf(s);
    while (d.innerType && ['optional', 'default', 'prefault', 'nullable'].includes(d.type)) {
      s = d.innerType;
      d = defOf(s);
    }
    return s;
  };
  let s: z.ZodType | undefined = unwrap(schema);
  for (const key of path) {
    const d = defOf(s);
    const next = { object: d.shape?.[String(key)], record: d.valueType, array: d.element };
    s = next[d.type as keyof typeof next];
    if (!s) return [];
    s = unwrap(s);
  }
  const d = defOf(s);
  return d.type === 'object' && d.shape ? Object.keys(d.shape) : [];
}
