/**
 * Each agent's instructions file (CLAUDE.md, AGENTS.md, … as kinds.ts names it), written by `up` and `init`:
 * who the agent is, who it talks to, how to reply, and to stop after sending. A file without baton's marker
 * line is the user's own and never touched.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Config } from '../../config/config.js';
import { writeAtomic, ensureDir } from '../../lib/fsx.js';
import { KINDS } from '../../terminal/kinds.js';
import { expectedReceiver } from '../../core/turns.js';

export const MARKER = '<!-- written by baton from config.json; delete this line to make the file your own -->';

export function instructionsText(config: Config, name: string): string {
  const agent = config.agents[name]!;
  const others = config.order.filter((a) => a !== name);
  const policy = config.turns.policy;
  const next = expectedReceiver(name, { policy, agents: config.order });
  const from = senderTo(config, name);
  // scripts/send.sh exists in baton's own checkout, not in a folder `baton init` set up.
  const sendSh = existsSync(join(config.baseDir, 'scripts', 'send.sh'))
    ? `${relative(agent.cwd, join(config.baseDir, 'scripts')) || '.'}/send.sh`
    : null;
  const turns =
    policy === 'handoff'
      ? `- Only the agent holding the turn speaks. You choose who speaks next: your message goes to the agent you
  address (${others.join(', ')}), and that agent gets the turn.`
      : policy === 'round_robin'
        ? `- Turns go round in this order: ${config.order.join(' → ')} → ${config.order[0]}. Your messages go to **${next}**.`
        : `- Turns alternate strictly between you and **${others[0]}**.`;
  const post = policy === 'handoff' ? `baton post --to ${others[0]} "your message"` : 'baton post "your reply"';
  if (agent.reply === 'auto') return autoText(config, name, turns);
  // The example header's last line: what baton tells the agent to do with the message.
  const footer =
    policy === 'handoff'
      ? 'your turn: pass it on with: baton post --to AGENT "<your message>"'
      : `reply to ${next ?? others[0]} with: baton post "<your reply>"`;
  const forgot =
    agent.reply === 'both' ? '\nIf your turn ends without a post, baton sends your final reply for you (once).\n' : '';
  return `${head(config, name, turns, ' and delivers what you send')}
- A message for you arrives as a prompt that starts with a header line, for example:

      [baton] msg_0007 from ${from} (reply to msg_0006)
      <the text ${from} wrote>

      [baton] ${footer}

${
  agent.kind === 'shell'
    ? `- This pane is a shell, so baton never types a message's text into it (a shell would run it): you get one
  comment line naming the message, \`# baton: msg_0007 from ${from} … - read it with: baton show msg_0007\`.
  Read it with that command.
`
    : ''
}- Answer each message with **exactly one** message, then **stop and wait**. Do not poll, do not sleep in a
  loop, do not check folders: the next message will be typed into this pane when it comes.
- A message written out of turn is not lost: baton holds it until your turn — but it is still one per turn.
- Messages from a person start with \`[baton] user_0001 from user\`; they are not a turn and need no reply through baton.
${PERSON_NOTE}
- A line starting with \`[baton] reminder\` means it is your turn and someone is waiting for you.${catchUpLines(config)}

## How to reply
Run one shell command from this folder:${forgot}

\`\`\`sh
${post}
${policy === 'handoff' || !sendSh ? '' : `${sendSh} "your reply"      # the same, through the helper script\n`}\`\`\`

For long or multi-line text, read it from standard input:

\`\`\`sh
${post.replace(/"your (reply|message)"/, '-')} <<'MSG'
first line
second line
MSG
\`\`\`

Text that starts with \`-\` goes after \`--\`: \`baton post -- "-1 is the answer"\`.

## Rules
- baton owns IDs and \`reply_to\`: never edit files under the message folder yourself; \`baton post\` writes a
  correct message file for you.
- Whose turn it is: \`baton status\`. The conversation so far: \`baton log\`.
- Keep messages self-contained: the others see only what you send, not your screen.
`;
}

/** A person's note to every agent (`baton send --to all`) is to be followed, unlike a catch-up's context. */
const PERSON_NOTE = `- A note from a person to every agent (its last line says \`a person's note to every agent\`) is a
  directive: follow it. It is not a turn either.`;

/**
 * With three or more agents each message goes to one of them, so the message that gives an agent the turn
 * may begin with what the others said meanwhile (docs/protocol.md §11): context, not to be answered line by line.
 */
function catchUpLines(config: Config): string {
  if (config.order.length < 3 || config.turns.catch_up === 'off') return '';
  return `
- Each message goes to one agent, so the message that gives you the turn may begin, under its header, with
  what the others said since your last turn: a block from \`[baton] while you were away (context, not
  addressed to you):\` to \`[baton] the message to you:\`, each line quoted with \`>\`. Read it as context; do
  not answer it line by line: answer the message to you. A message cut short there, or one named as
  omitted, is printed in full by \`baton show ID\` (a range too: \`baton show msg_0004..msg_0009\`).`;
}

/** Who an agent's messages come from in the example header: the agent before it under round robin. */
function senderTo(config: Config, name: string): string {
  const at = config.order.indexOf(name);
  if (config.turns.policy === 'round_robin') return config.order[(at + config.order.length - 1) % config.order.length]!;
  return config.order.find((a) => a !== name) ?? name;
}

/** Both texts' opening: who the agent is, who else is there, and the turns. */
const head = (config: Config, name: string, turns: string, delivers: string): string => `${MARKER}
# You are ${name}

You are **${name}**, one of ${config.order.length} AI agents in a conversation run by **baton**: ${config.order.join(', ')}.
You live in your own terminal pane; baton types every message for you into it${delivers}.

## Turns
${turns}
- ${config.firstTurn === name ? 'You speak first: you hold the turn when the conversation starts.' : `${config.firstTurn} speaks first.`}`;

/** Instructions for an agent whose final reply baton posts for it (`reply: "auto"`): it just answers. */
function autoText(config: Config, name: string, turns: string): string {
  const from = senderTo(config, name);
  return `${head(config, name, turns, '')}
- A message for you arrives as a prompt that starts with a header line, for example
  \`[baton] msg_0007 from ${from} (reply to msg_0006)\`, then the text.
${PERSON_NOTE}${catchUpLines(config)}

## How to reply
Just answer in plain text, as you would answer a person. When your turn ends, baton sends your final
reply as your message (it reads it from this CLI's hooks). Do not run \`baton post\`: one reply per turn.
Keep each reply self-contained: the others see only your final reply, not your screen.
`;
}

/** Write each agent's instructions file into its cwd unless the user's own is there; says what was written or kept. */
export async function writeInstructions(config: Config): Promise<{ written: string[]; kept: string[] }> {
  const written: string[] = [];
  const kept: string[] = [];
  for (const name of config.order) {
    const agent = config.agents[name]!;
    if (agent.target) continue; // a pane a person runs: their setup, not ours
    const file = join(agent.cwd, KINDS[agent.kind].instructions);
    const text = instructionsText(config, name);
    const current = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (current?.startsWith(MARKER) === false) kept.push(file);
    else if (current !== text) {
      await ensureDir(agent.cwd);
      await writeAtomic(file, text);
      written.push(file);
    }
  }
  return { written, kept };
}
