import { relative } from 'node:path';
import { CLI_JS } from '../../app/paths.js';
import { DEMO_TURNS } from '../../core/conversation.js';
import { noPositionals, optionsOf, type CommandSpec } from '../command.js';
import { DEFAULT_UI_PORT } from './ui.js';

export const up: CommandSpec = {
  usage: 'up [--demo] [--fresh] [--fresh-agents] [--topic TEXT]',
  summary: 'start the conversation: a tmux session per agent and the daemon',
  options: { ...optionsOf('boolean', 'demo', 'fresh', 'fresh-agents'), topic: { type: 'string' } },
  examples: [
    'baton up --demo',
    'baton up --topic "Design a rate limiter for our API; agree on one design"',
    'baton up --fresh',
  ],
  help: `
Creates the message folders and state.json, starts a tmux session per agent (its "session" in
config.json, else its name; in its cwd, running its command, with BATON_AGENT and BATON_CONFIG set and
baton on PATH) and hands the conversation to the machine's daemon, starting it in the tmux session
"baton-daemon" when none runs (BATON_DAEMON=conversation: a daemon of its own in "watcher"); "baton
attach daemon" shows it. Running sessions are left alone; it says which conversation it continues
("continuing a conversation of 20 messages").

  --demo         run the bundled demo agents instead of the configured commands: small programs that
                 answer each other through "baton post" (a short scripted conversation that ends by
                 itself after ${DEMO_TURNS} messages), so you can watch baton with no agent CLI installed
  --fresh        stop this config's sessions first and start a new conversation; the old state.json,
                 archive/, rejected/, pending/, events.jsonl and waiting files are moved to
                 message_dir/history/<time>/ (nothing is deleted)
  --fresh-agents continue the conversation, but start every agent's client new instead of resuming
                 its session (its memory of the conversation is gone; the turn holder gets what it owes
                 again, flagged "(redelivered)")
  --topic TEXT   once the agent holding the turn is ready, type TEXT to it as the opening of its turn
                 (the same as "baton start TEXT"); "-" reads it from standard input

Continuing a conversation (after a reboot, a crash, "baton down"), each Claude Code, Codex and Gemini CLI
agent is started with its client's own resume of the session its hooks reported (claude --resume ID,
codex … resume ID, gemini --resume ID), so it keeps its memory; a session its client no longer has is
started new, and said. The agent holding the turn is then told what it owes: the message again, flagged
"(redelivered)", when its model never got it (or its client started new), else a reminder naming it.
The same when "up" starts again an agent whose program had exited. Other kinds start new, as always.

Demo and real agents never share a conversation or a session: real agents after a demo start a new
conversation (the demo's is kept in history/) and replace the demo programs in their sessions; the
demo refuses to join real agents' conversation (use --demo --fresh).
Agents with a "target" pane in config.json are not started: baton types into that pane.
Sessions baton starts are tagged with this conversation; one belonging to another conversation is
never adopted (exit 1). An agent whose program has exited is started again.

Each agent's instructions file (CLAUDE.md for claude, AGENTS.md for codex, GEMINI.md for gemini,
CONVENTIONS.md for aider, AGENTS.md otherwise) is written into its cwd from the config: who it is,
whom it talks to, how to reply. A file you wrote yourself (without baton's marker line) is kept.`,
  async run(inv) {
    const { startRequest } = await import('../../app/requests.js');
    const { up: start } = await import('../../app/up/up.js');
    const { isLocal } = await import('../../config/config.js');
    const { log } = await import('../../lib/log.js');
    const { onPath } = await import('../../terminal/program.js');
    const { Tmux } = await import('../../terminal/tmux.js');
    const { attachHint, configFrom, textOrStdin } = await import('../inputs.js');
    noPositionals(inv);
    const config = configFrom(inv);
    const topicArg = inv.values.topic as string | undefined;
    const topic = topicArg === undefined ? undefined : await textOrStdin(topicArg, config);
    if (topic !== undefined) startRequest(topic); // an empty topic is a usage error before anything starts
    const t = new Tmux();
    const r = await start(config, t, {
      demo: Boolean(inv.values.demo),
      fresh: Boolean(inv.values.fresh),
      freshAgents: Boolean(inv.values['fresh-agents']),
      topic,
    });
    if (!r.ok) return r.code;
    // Commands a person can paste as they are: `baton` if it is on their PATH, else the node invocation.
    // A path that climbs out of the current folder reads better absolute.
    const rel = relative(process.cwd(), CLI_JS);
    const self = onPath('baton', process.cwd()) ? 'baton' : `node ${rel && !rel.startsWith('..') ? rel : CLI_JS}`;
    const withConfig = (cmd: string) =>
      `${self} ${cmd}${config.file ? ` --config ${relative(process.cwd(), config.file) || config.file}` : ''}`;
    if (r.kicked && !r.kicked.ok) {
      log.error(`the topic was not given: ${r.kicked.message}`);
      log.info(`when ${r.holder} is ready: ${withConfig('start "…"')}`);
      return 1;
    }
    // Only this machine's agents can be watched from here (another machine's pane is in its own tmux).
    const here = config.order.filter((a) => isLocal(config, a));
    const elsewhere = config.order.filter((a) => !isLocal(config, a));
    const first = config.agents[here[0] ?? config.order[0]!]!;
    const demo = Boolean(inv.values.demo);
    const watch = first.target ? withConfig(`attach ${first.name}`) : attachHint(t, first.session);
    process.stdout.write(
      [
        '',
        `baton is running: ${config.order.join(', ')} take turns${demo ? ' (demo agents)' : ''}.`,
        ...(r.kicked
          ? [`  topic:            ${r.kicked.message}`]
          : demo
            ? []
            : [`  give them a topic: ${withConfig(`start "…"`)}   (typed to ${r.holder}, who opens)`]),
        `  watch an agent:   ${watch}   (detach: Ctrl-b d)`,
        ...elsewhere.map((a) => `  ${a} runs on ${config.agents[a]!.host}: watch it there`),
        ...(r.watcher ? [`  the daemon:       ${attachHint(t, r.watcher)}`] : []),
        `  status:           ${withConfig('status')}`,
        `  in a browser:     ${withConfig('ui')}   (a live dashboard on http://127.0.0.1:${DEFAULT_UI_PORT}/)`,
        `  stop everything:  ${withConfig('down')}`,
        '',
      ].join('\n'),
    );
    return 0;
  },
};
