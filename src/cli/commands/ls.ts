import { noPositionals, UsageError, type CommandSpec } from '../command.js';

export const ls: CommandSpec = {
  usage: 'ls [--json] [--bus URL [--schema NAME]]',
  summary: "every conversation this machine's daemon serves (or, with --bus, a database holds), from any folder",
  reads: true,
  options: { json: { type: 'boolean' }, bus: { type: 'string' }, schema: { type: 'string' } },
  examples: [
    'baton ls',
    'baton ls --json | jq -r ".conversations[].folder"',
    'baton ls --bus "$BATON_BUS_URL"',
    'baton ls --bus postgres://baton@db.lan/baton --json | jq ".conversations[] | {conversation, turn, run}"',
  ],
  help: `
Lists the conversations in the machine's registries ($XDG_STATE_HOME/baton/conversations.json, default
~/.local/state/baton/, and hosts/<name>/conversations.json there for each BATON_HOST other than the
hostname): the ones "baton up" handed to a machine's daemon and "baton down" has not taken back, with
the machine name each runs as (HOST) when any is not the machine's own — and this machine's conversations
that run a daemon of their own (BATON_DAEMON=conversation, or PostgreSQL with other database settings than
the machine's daemon has), marked "(own daemon)"; a daemon started by hand (baton daemon) is in no list and
not shown. For each: its folder and config, bus, policy, who holds the turn and for how long, the
messages so far, running / paused / finished / stalled (or stopped: no daemon holds it now), and the
files waiting in its direction folders. A conversation whose config or folder cannot be read, or whose
database this shell cannot reach, or that the machine's daemon skipped, is listed with its problem. A
registry that does not read is said, and what the daemon serves is listed instead (baton changes nothing
in the file until it is fixed by hand). Changes nothing.

  --json         print one JSON object: registry (this shell's machine name's folder), daemon ({pid,
                 host, started_at, stay} or null), problem (its registry's, or null), machines ([{host,
                 registry, daemon, problem}]: every machine name with a daemon, a problem or a
                 conversation; host null: the machine's own), conversations ([{folder, config,
                 message_dir, bus, host, skipped, own_daemon (true, else absent), ok, conversation, policy, turn, seconds_in_turn,
                 messages, run, daemon_pid, waiting} or {folder, config, message_dir, bus, host, skipped,
                 ok: false, problem}]); skipped: why the machine's daemon does not serve it, or null
  --bus URL      instead, every conversation in that PostgreSQL database, whichever machines run it, with
                 its machines: for each, who holds the turn (and on which machine) and for how long, the
                 messages, running / paused / finished / stalled / stopped (no machine's daemon alive),
                 the messages waiting in the database, and each machine's daemon — alive or not, its pid,
                 since when (its lease taken; not alive: its last heartbeat) — and agents. Reads only: it
                 never makes the schema, takes a lease or writes. A database that cannot be reached or
                 refuses prints one line and exits 1.
                 With --json: bus (the URL, password hidden), schema_version (null: no baton schema
                 there), conversations ([{conversation, set_aside, created_at, config_recorded ({host, at}
                 or null), machines ([{host, alive, pid, since, last_heartbeat, agents}]), ok, policy,
                 turn, turn_host, turn_started_at, seconds_in_turn, messages, run, waiting, held
                 (direction → count), approvals, rejected} or {…, ok: false, problem}])
  --schema NAME  the schema the conversations are in (bus.schema; default baton); only with --bus`,
  async run(inv) {
    const { formatBusListing, listBus } = await import('../../app/status/list-bus.js');
    const { formatListing, listConversations } = await import('../../app/status/list.js');
    const { BUS_SCHEMA_NAME } = await import('../../config/schema.js');
    const { log } = await import('../../lib/log.js');
    noPositionals(inv);
    const { bus, schema } = inv.values as { bus?: string; schema?: string };
    if (schema !== undefined && bus === undefined) throw new UsageError('--schema goes with --bus URL');
    if (schema !== undefined && !BUS_SCHEMA_NAME.test(schema))
      throw new UsageError(`"${schema}" is not a schema name baton uses (lower-case letters, digits, _)`);
    if (bus === undefined) {
      const listing = await listConversations();
      process.stdout.write(inv.values.json ? `${JSON.stringify(listing, null, 2)}\n` : formatListing(listing));
      return 0;
    }
    if (!bus) throw new UsageError('--bus needs a URL (postgres://user@host:5432/database)');
    // A URL node-postgres would take for something else (a socket folder, a host name): refused in one line.
    if (!URL.canParse(bus) || !['postgres:', 'postgresql:'].includes(new URL(bus).protocol)) {
      log.error('the --bus value is not a PostgreSQL URL: give one like postgres://user@host:5432/database');
      return 1;
    }
    const listing = await listBus(bus, schema);
    process.stdout.write(inv.values.json ? `${JSON.stringify(listing, null, 2)}\n` : formatBusListing(listing));
    return 0;
  },
};
