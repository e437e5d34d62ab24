import { formatListing, listConversations } from '../../app/machine/list.js';
import { noPositionals, type CommandSpec } from '../command.js';

export const ls: CommandSpec = {
  usage: 'ls [--json]',
  summary: "every conversation this machine's daemon serves, from any folder",
  options: { json: { type: 'boolean' } },
  examples: ['baton ls', 'baton ls --json | jq -r ".conversations[].folder"'],
  help: `
Lists the conversations in the machine's registry ($XDG_STATE_HOME/baton/conversations.json, default
~/.local/state/baton/): the ones "baton up" handed to the machine's daemon and "baton down" has not
taken back. For each: its folder and config, bus, policy, who holds the turn and for how long, the
messages so far, running / paused / finished / stalled (or stopped: no daemon holds it now), and the
files waiting in its direction folders. A conversation whose config or folder cannot be read is listed
with its problem. Changes nothing.

  --json   print one JSON object: registry (the folder), daemon ({pid, host, started_at, stay} or null),
           problem (the registry's, or null), conversations ([{folder, config, message_dir, bus, ok,
           conversation, policy, turn, seconds_in_turn, messages, run, daemon_pid, waiting} or
           {folder, config, message_dir, bus, ok: false, problem}])`,
  async run(inv) {
    noPositionals(inv);
    const listing = await listConversations();
    process.stdout.write(inv.values.json ? `${JSON.stringify(listing, null, 2)}\n` : formatListing(listing));
    return 0;
  },
};
