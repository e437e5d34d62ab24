/**
 * What the receiving pane gets (docs/protocol.md §5), as pure functions: the sanitized content inside a header
 * and a reply hint. Nothing here may let message content press a key in the agent.
 */
import { RECORD_ID_SOURCE } from './ids.js';
import { firstLine, linesOf, toLF } from './lines.js';
import { expectedReceiver, type Policy } from './turns.js';

/** What the hints need of a conversation's config: its policy and agents in order. */
type Conversation = {
  turns: { policy: Policy };
  order: readonly string[];
  agents?: Record<string, { reply?: string }>;
};

/** An agent whose final reply baton posts for it (`reply: "auto"`): it just answers. */
const answersItself = (config: Conversation, agent: string): boolean => config.agents?.[agent]?.reply === 'auto';

// C0 controls except TAB (0x09) and LF (0x0A), DEL, and C1 (U+0080–U+009F, NEL included). ESC goes too, so an
// embedded escape sequence (including a fake bracketed-paste end, ESC[201~) arrives as inert printable text.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** Text safe to type, LF its only line break (lines.ts): no separator starts a line the quoting and receipts miss. */
export const sanitize = (text: string): string => toLF(text).replace(CONTROL, '');

export interface Envelope {
  id: string;
  from: string;
  to: string;
  reply_to: string | null;
  type: string;
  subject?: string | undefined;
  content: string;
  /** The paste may already have happened before a crash: say so. */
  redelivered?: boolean;
}

const DEFAULT_TEMPLATE = '{header}\n{content}\n\n{hint}';

/** A catch-up block's first line (catch-up.ts): what follows is context, until the last says the message follows. */
export const CATCH_UP_OPENER = '[baton] while you were away (context, not addressed to you):';
export const CATCH_UP_OPENER_NAMES =
  '[baton] while you were away (context, not addressed to you; baton show ID prints one):';
export const CATCH_UP_CLOSER = '[baton] the message to you:';

/** How every text baton types starts: `[baton] msg_0007 ` (a screen check recognises its own paste by it). */
export const headerPrefix = (id: string): string => `[baton] ${id} `;

const HEADER = new RegExp(`^\\[baton\\] (${RECORD_ID_SOURCE}) from (\\S+)`);

/** What a typed text's header says (for agents that read baton's messages, like the demo agent), or null. */
export function parseHeader(text: string): { id: string; from: string } | null {
  const m = HEADER.exec(text);
  return m ? { id: m[1]!, from: m[2]! } : null;
}

/** What a header (and a catch-up's title) says of a message after who sent it: reply_to, type, `— subject`. */
export const tagsOf = (e: { reply_to: string | null; type: string }, subject: string | false): string[] => [
  ...(e.reply_to ? [`(reply to ${e.reply_to})`] : []),
  ...(e.type !== 'message' ? [`[${e.type}]`] : []),
  ...(subject !== false ? [`— ${subject}`] : []),
];

const header = (e: Envelope): string =>
  [
    `${headerPrefix(e.id)}from ${e.from}`,
    ...tagsOf(e, !!e.subject && e.subject),
    ...(e.redelivered ? ['(redelivered)'] : []),
  ].join(' ');

const others = (config: Conversation, agent: string) => config.order.filter((a) => a !== agent);
const nextOf = (config: Conversation, agent: string) =>
  expectedReceiver(agent, { policy: config.turns.policy, agents: config.order }) ?? others(config, agent)[0] ?? '?';

/** How `agent` answers when it gets the turn, under the conversation's policy (who it may address). */
export function replyHint(config: Conversation, agent: string): string {
  if (answersItself(config, agent))
    return '[baton] answer in plain text: when your turn ends, baton sends your final reply';
  if (config.turns.policy === 'handoff')
    return `[baton] your turn: pass it on with: baton post --to AGENT "<your message>" (AGENT: ${others(config, agent).join(', ')})`;
  return `[baton] reply to ${nextOf(config, agent)} with: baton post "<your reply>"`;
}

/**
 * The hint under a kick-off (`baton start`): the topic opens the holder's turn, so unlike a person's other
 * messages it is answered, through baton, to whoever the policy says comes next.
 */
export function kickoffHint(config: Conversation, holder: string, owes: string | null): string {
  const how = answersItself(config, holder)
    ? 'answer in plain text; when your turn ends, baton sends your final reply'
    : config.turns.policy === 'handoff'
      ? `write to the agent you choose with: baton post --to AGENT "<your message>" (AGENT: ${others(config, holder).join(', ')})`
      : `write to ${nextOf(config, holder)} with: baton post "<your message>"`;
  return owes
    ? `[baton] a person set this topic; you hold the turn and ${owes} is waiting for your reply: ${how}`
    : `[baton] a person set this topic; you hold the first turn, so open the conversation: ${how}`;
}

/** What every pane is told when a person resumes a finished conversation (the holder: what it owes). */
export function resumeNotice(
  config: Conversation,
  agent: string,
  state: { current_turn: string; pending_reply_to: string | null },
): string {
  const holder = state.current_turn;
  if (agent !== holder)
    return `[baton] the conversation continues (a person resumed it): ${holder} has the turn. Wait for the next message.`;
  const owes = state.pending_reply_to
    ? `, and ${state.pending_reply_to} is waiting for your reply`
    : ': the conversation waits for your first message';
  return `[baton] the conversation continues (a person resumed it): it is your turn${owes}.\n${replyHint(config, holder)}`;
}

/** The hint under a person's message: no reply is expected through baton, and whose turn it is. */
export function userHint(state: { current_turn: string }): string {
  return `[baton] this is from a person, not a turn (it is ${state.current_turn}'s turn)`;
}

/**
 * The hint under a person's note to every agent (`baton send --to all`): what a person says to all of them is
 * a directive to follow, not background like a catch-up, and it is nobody's turn because of it.
 */
export function noteHint(state: { current_turn: string }): string {
  return `[baton] a person's note to every agent: follow it; it is not a turn (it is ${state.current_turn}'s turn)`;
}

// Claude Code runs a prompt that starts with "/" or "!" as a command even after spaces, NBSP or
// zero-width characters, and treats a trailing "\" as "newline, do not submit".
const LEADING_COMMAND = /^[\s\u00A0\u200B-\u200D\u2060\uFEFF]*[/!]/;

/**
 * Render the text typed into the pane: every field an agent wrote sanitized, never starting with "/" or "!"
 * nor ending with "\" or a newline, whatever the template says. `catchUp` (catch-up.ts) goes at `{catch_up}`,
 * else right after the header line (else first), so the message that gives the turn stays one paste.
 */
export function render(e: Envelope, template = DEFAULT_TEMPLATE, hintText?: string, catchUp = ''): string {
  const clean: Envelope = {
    ...e,
    content: sanitize(e.content),
    subject: e.subject === undefined ? undefined : sanitize(e.subject).replace(/\n/g, ' '),
  };
  const fields: Record<string, string> = {
    header: header(clean),
    hint: sanitize(hintText ?? `[baton] reply to ${clean.from} with: baton post "<your reply>"`),
    id: clean.id,
    from: clean.from,
    to: clean.to,
    reply_to: clean.reply_to ?? '',
    type: clean.type,
    subject: clean.subject ?? '',
    content: clean.content,
    redelivered: clean.redelivered ? '(redelivered)' : '',
  };
  const block = sanitize(catchUp);
  let form = template;
  if (!block) form = form.replace(/\{catch_up\}\n?/g, '');
  else if (form.includes('{catch_up}')) fields.catch_up = block;
  else if (form.includes('{header}')) fields.header = `${fields.header}\n${block}`;
  else form = `${block}\n${form}`;
  // One pass, so a "{hint}" written inside content is never expanded.
  let text = sanitize(form.replace(/\{(\w+)\}/g, (m, key: string) => fields[key] ?? m));
  text = text.replace(/\s+$/, '');
  if (LEADING_COMMAND.test(text)) text = `[baton] ${text.trimStart()}`;
  if (text.endsWith('\\')) text += ' [end]';
  return text;
}

/** A message on one line, for a program that takes every line break as a submit (` ⏎ ` where they were). */
export const oneLine = (text: string): string => linesOf(text).join(' \u23CE ');

/**
 * What a shell gets instead of a message (a `--kind shell` receiver once ran message content as commands): one
 * comment line naming it (`baton show ID` reads it), of characters no shell gives a meaning in any position —
 * no quote, bracket, `$`, backtick, `;`, `&`, `|`, `<`, `>`, `*`, `?`, `!`, `\`, `#` after the first — so nothing
 * runs, even without interactive comments.
 *
 * Baton's own notices (no header) keep their punctuation, to be read ("finished max_turns baton resume
 * continues it" read badly): one single-quoted word after the `#`, where sh, bash, dash, zsh, fish and csh give
 * meaning only to the quote, fish's backslash and csh's `!` (history, even quoted) — those become look-alikes
 * (’ ⧵ ǃ); control characters (a TAB would complete) and line separators become spaces.
 */
export function inertLine(text: string): string {
  const h = parseHeader(text);
  if (!h) return `# baton: '${quotable(oneLine(text).replace(/^\[baton\] /, ''))}'`;
  const said = `${firstLine(text).replace(/^\[baton\] /, '')} - read it with: baton show ${h.id}`;
  return `# baton: ${said
    .replace(/[^A-Za-z0-9 _.,:@/+=%-]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim()}`;
}

/** Text that means nothing but itself inside single quotes, in every shell SHELLS lists. */
function quotable(text: string): string {
  return text
    .replace(/'/g, '\u2019')
    .replace(/\\/g, '\u29F5')
    .replace(/!/g, '\u01C3')
    .replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]/g, ' ')
    .trim();
}
