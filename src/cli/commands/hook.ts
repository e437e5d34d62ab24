import { HOOK_EVENTS } from '../../core/hook-note.js';
import { HOOK_USAGE, runHook } from '../hook.js';
import type { CommandSpec } from '../command.js';

/** `baton hook` as listed in the help; cli.ts runs it without loading the rest (see cli/hook.ts). */
export const hook: CommandSpec = {
  usage: HOOK_USAGE,
  summary: "an agent CLI's hook: leave its report for the daemon (run by hooks, not by people)",
  options: { agent: { type: 'string' }, spool: { type: 'string' } },
  examples: ['echo \'{"prompt":"hi"}\' | baton hook prompt --agent claude1 --spool messages/.hooks/claude1'],
  help: `
Reads the hook's JSON on stdin and leaves it as a note in the agent's spool folder, which the daemon
reads: a receipt of what the model got (prompt), the end of a turn with its final reply (stop), a
permission dialog (permission). It prints nothing and always exits 0, so a hook can never hold up or
break the agent. "baton up" installs the hooks that run it.

  EVENT          ${HOOK_EVENTS.join(', ')}
  --agent NAME   the agent whose hook this is
  --spool DIR    its spool folder (messages/.hooks/NAME)`,
  async run(inv) {
    const flags = (['agent', 'spool'] as const).flatMap((k) => (inv.values[k] ? [`--${k}`, `${inv.values[k]}`] : []));
    return runHook([...inv.positionals, ...flags]);
  },
};
