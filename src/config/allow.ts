/**
 * `agents.NAME.allow` (docs/reference.md): what an agent may do without a dialog a person would always approve.
 * `baton up` writes the rules into the client's own permission settings (terminal/hooks/allow-rules.ts); nothing
 * is ever pressed for it. A rule is a command prefix — plain words, which each client gets in its own syntax
 * (`"npm test"`: Claude Code `Bash(npm test:*)`, Codex `prefix_rule(pattern=["npm", "test"])`, Gemini CLI a
 * `commandPrefix` rule) — or a client's own rule as it is: `{"claude": "Edit(./**)"}`, `{"gemini": "[[rule]] …"}`.
 */
import { z } from 'zod';

const ALLOW_KINDS = ['claude', 'codex', 'gemini'] as const;
export type AllowKind = (typeof ALLOW_KINDS)[number];

/**
 * Plain words, split alike by any shell. Quotes, `$`, pipes, redirects, `;` and `&` are refused: each client treats
 * them differently (Claude Code never lets a Bash rule cover a redirect; Gemini CLI asks about one).
 */
const PREFIX = /^[A-Za-z0-9_./:@%+=,^~-]+(?: [A-Za-z0-9_./:@%+=,^~-]+)*$/;

const native = z.string().min(1).max(4000);

export const AllowRuleSchema = z.union([
  z
    .string()
    .regex(
      PREFIX,
      'a command prefix is plain words separated by one space, with no quotes, $, pipes, redirects, ";" or "&" ' +
        '("npm test"); a client\'s own rule goes in an object: {"claude": "Edit(./**)"}',
    ),
  z
    .strictObject({ claude: native.optional(), codex: native.optional(), gemini: native.optional() })
    .refine((o) => Object.keys(o).length > 0, 'name the client: {"claude": …}, {"codex": …} or {"gemini": …}'),
]);
export type AllowRule = z.infer<typeof AllowRuleSchema>;

/** Why an agent's rules cannot be written (`key`: its config path), or none. */
export function allowProblems(key: string, kind: string, rules: readonly AllowRule[]): string[] {
  if (!rules.length) return [];
  if (!(ALLOW_KINDS as readonly string[]).includes(kind))
    return [`${key}: only ${ALLOW_KINDS.join(', ')} agents have permission settings baton writes, not "${kind}"`];
  return rules.flatMap((r, i) =>
    typeof r === 'object' && r[kind as AllowKind] === undefined
      ? [`${key}.${i}: no rule for ${kind} (it has ${Object.keys(r).join(', ')})`]
      : [],
  );
}

/** The rules for one client: each prefix as words, each native rule of that client as it is. */
export type ClientRule = { prefix: string[] } | { native: string };

export function rulesFor(kind: AllowKind, rules: readonly AllowRule[]): ClientRule[] {
  return rules.flatMap((r): ClientRule[] => {
    if (typeof r === 'string') return [{ prefix: r.split(' ') }];
    const n = r[kind];
    return n === undefined ? [] : [{ native: n }];
  });
}
