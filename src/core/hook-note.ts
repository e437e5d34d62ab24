/**
 * What `baton hook` leaves in the spool (receipt.ts says what it means). Without zod: the hook command
 * imports this on an agent's critical path, and loads nothing it does not need.
 */

/** The hook events baton installs, by what they mean (each CLI's own event names map onto these). */
export const HOOK_EVENTS = ['prompt', 'stop', 'permission'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** One note: the CLI's hook payload kept as it came. */
export interface HookNote {
  event: HookEvent;
  agent: string;
  /** When the hook ran (ISO-8601). */
  at: string;
  payload: Record<string, unknown>;
}
