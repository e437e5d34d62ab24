/**
 * core/hook-note.ts: which hook events baton installs and which agent kinds run them. A kind with hooks
 * has its deliveries confirmed by its own hook; every other kind is confirmed on screen or not at all.
 */
import { describe, expect, it } from 'vitest';
import { HOOK_EVENTS, HOOK_KINDS, hasHooks } from '../../../src/core/hook-note.js';
import { HookNoteSchema } from '../../../src/core/receipt.js';
import { KINDS } from '../../../src/terminal/kinds.js';

describe('hook kinds', () => {
  it('Claude Code, Codex and Gemini CLI run baton’s hooks', () => {
    expect(hasHooks('claude')).toBe(true);
    expect(hasHooks('codex')).toBe(true);
    expect(hasHooks('gemini')).toBe(true);
  });

  it('aider, a shell, a generic program, or a name that is no kind, run none', () => {
    for (const kind of ['aider', 'shell', 'generic', '', 'Claude', 'claude ', 'toString', 'constructor'])
      expect(hasHooks(kind), kind).toBe(false);
  });

  it('every kind with hooks is a known agent CLI', () => {
    for (const kind of HOOK_KINDS) expect(KINDS[kind].agentCli, kind).toBe(true);
    expect(Object.keys(KINDS).filter(hasHooks)).toEqual([...HOOK_KINDS]);
  });
});

describe('hook events', () => {
  const read = (event: string) =>
    HookNoteSchema.safeParse({ event, agent: 'a', at: '2026-01-01T00:00:00.000Z', payload: {} }).success;

  it('a note read back from the spool names one of baton’s events', () => {
    expect(HOOK_EVENTS.length).toBeGreaterThan(0);
    for (const event of HOOK_EVENTS) expect(read(event), event).toBe(true);
  });

  it("a CLI's own event name is not one of baton's: the hook command maps it first", () => {
    for (const event of ['UserPromptSubmit', 'Stop', 'BeforeAgent', 'AfterAgent', 'PermissionRequest', ''])
      expect(read(event), event).toBe(false);
  });
});
