/**
 * What `baton hook` leaves in the spool (receipt.ts says what it means). Without zod: the hook command
 * imports this on an agent's critical path, and loads nothing it does not need.
 */

/**
 * The hook events baton installs, by meaning: a prompt reached the model, the turn ended, a dialog waits for a
 * person (a permission request or a question), a tool ran (`ran`: only to see a dialog close, while one is open).
 */
export const HOOK_EVENTS = ['prompt', 'stop', 'permission', 'ran'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** The kinds whose CLI runs baton's hooks: deliveries confirmed by the prompt received, automatic replies possible. */
export const HOOK_KINDS = ['claude', 'codex', 'gemini'] as const;
export const hasHooks = (kind: string): boolean => (HOOK_KINDS as readonly string[]).includes(kind);

/** One note: the CLI's hook payload kept as it came. */
export interface HookNote {
  event: HookEvent;
  agent: string;
  /** When the hook ran (ISO-8601). */
  at: string;
  payload: Record<string, unknown>;
}
