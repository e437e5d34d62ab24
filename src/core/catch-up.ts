/**
 * Catching up (docs/protocol.md §11): with three or more agents each message goes to one receiver, so an
 * agent given the turn may have missed what the others said (a reviewer once answered the coder without
 * having seen the planner's plan). The text that gives it the turn carries that, as context, in one paste.
 * Pure functions of the archive, so a redelivery, both buses and every machine's daemon compute the same.
 *
 * - An agent's place: the last agent's message stamped delivered to it before the one giving it the turn.
 * - Missed: the agents' messages after its place that it neither wrote nor received, and a person's topic
 *   (`kickoff`) typed to another agent after it. Never a person's remark to one agent, a note to all, or its own.
 * - Shown: oldest first, each cut to `messageMaxBytes` (the rest named for `baton show`), the block within
 *   `maxBytes`: over it the newest are kept and the rest named ("3 earlier messages omitted: baton show
 *   msg_0002..msg_0004") — never dropped silently, never burying the message it comes with.
 *
 * Its lines after the first are quoted ("> "), so none can start a line (lines.ts) as a baton header
 * (`[baton] msg_…`, which receipts look for), a command (`/`, `!`) or a prompt's end.
 */
import { CATCH_UP_CLOSER, CATCH_UP_OPENER, CATCH_UP_OPENER_NAMES, sanitize, tagsOf } from './compose.js';
import { formatId, parseId } from './ids.js';
import { linesOf } from './lines.js';
import { type ArchiveRecord, byDelivery, when } from './record.js';

export const CATCH_UP_MODES = ['full', 'names', 'off'] as const;
type CatchUpMode = (typeof CATCH_UP_MODES)[number];

/** `turns.catch_up` and its UTF-8 byte budgets: the whole block's (first and last lines too), one content's. */
export type CatchUpRules = { mode: CatchUpMode; maxBytes: number; messageMaxBytes: number };

/** What the rule reads of an archived record. */
export type Said = Pick<
  ArchiveRecord,
  'id' | 'sender' | 'receiver' | 'type' | 'content' | 'reply_to' | 'delivered_at' | 'received_at'
> &
  Partial<Pick<ArchiveRecord, 'subject' | 'kickoff'>>;

/** Every message missed, those the block shows (`cut`: shortened) and those it only names, oldest first. */
export interface CatchUp {
  missed: Said[];
  shown: Array<{ said: Said; cut: boolean }>;
  omitted: Said[];
  /** The block as typed ('' when there is nothing to catch up on). */
  text: string;
}

const NONE: CatchUp = { missed: [], shown: [], omitted: [], text: '' };

/** Is `r` an agent's message stamped delivered to `agent` (a place in the conversation)? */
export const isPlace = (r: Said, agent: string): boolean =>
  parseId(r.id) !== null && r.receiver === agent && r.delivered_at !== null;

/** Who gets which message, and the `history` it is read against (records in any order, back to its place). */
type Getting = { history: readonly Said[]; agent: string; current: string; agents: number };

/** What `agent` missed before it gets `current`, from `history`. */
export function missedBy(a: Getting): Said[] {
  const { history, agent, agents } = a;
  const before = parseId(a.current);
  if (agents < 3 || before === null) return [];
  const messages = history
    .filter((r) => (parseId(r.id) ?? before) < before)
    .sort((x, y) => parseId(x.id)! - parseId(y.id)!);
  const place = messages.reduce((last, r, i) => (isPlace(r, agent) ? i : last), -1);
  const since = place >= 0 ? messages[place]!.delivered_at! : null;
  const missed = messages.slice(place + 1).filter((r) => r.sender !== agent && r.receiver !== agent);
  // A topic typed to another agent after this one's place; placed among the messages by when it was typed.
  const topics = history
    .filter(
      (r) =>
        parseId(r.id, 'user') !== null &&
        r.kickoff === true &&
        r.delivered_at !== null &&
        r.receiver !== agent &&
        (since === null || r.delivered_at > since),
    )
    .sort(byDelivery);
  const out: Said[] = [];
  let t = 0;
  for (const m of missed) {
    while (t < topics.length && topics[t]!.delivered_at! <= when(m)) out.push(topics[t++]!);
    out.push(m);
  }
  return [...out, ...topics.slice(t)];
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** `text` cut to at most `max` UTF-8 bytes, on a character boundary, preferably at a line or word end. */
export function cutTo(text: string, max: number): string {
  if (bytes(text) <= max) return text;
  let cut = Buffer.from(text, 'utf8').subarray(0, Math.max(0, max)).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1); // half a character
  const floor = Math.floor(cut.length * 0.7);
  const line = cut.lastIndexOf('\n');
  const word = cut.search(/\s\S*$/);
  const at = line >= floor ? line : word >= floor ? word : cut.length;
  return cut.slice(0, at).trimEnd();
}

const quote = (line: string) => (line === '' ? '>' : `> ${line}`);

const title = (r: Said): string =>
  [
    `${r.id} ${r.sender} → ${r.receiver}`,
    ...tagsOf(r, !!r.subject && sanitize(r.subject).replace(/\n/g, ' ')),
    ...(r.kickoff ? ['(the topic a person set)'] : []),
  ].join(' ');

/** A message's first words on one line (names mode). */
function firstWords(content: string): string {
  const flat = sanitize(content).replace(/\s+/g, ' ').trim();
  if (flat.length <= 80) return flat;
  const cut = flat.slice(0, 80);
  const space = cut.lastIndexOf(' ');
  return `${(space > 40 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** One missed message as block lines; `cap`: its content's bytes at most (full mode). */
function entry(r: Said, mode: 'full' | 'names', cap: number): { lines: string[]; cut: boolean } {
  if (mode === 'names') return { lines: [quote(`${title(r)}: ${firstWords(r.content)}`)], cut: false };
  const content = sanitize(r.content).replace(/\s+$/, '');
  const kept = cutTo(content, cap);
  const cut = kept !== content;
  const lines = [quote(`${title(r)}:`), ...(kept ? linesOf(kept).map(quote) : [])];
  if (cut) lines.push(quote(`[… cut here: baton show ${r.id} prints all ${bytes(r.content)} bytes]`));
  return { lines, cut };
}

/** "3 earlier messages omitted: baton show msg_0002..msg_0004" (a person's topics named one by one). */
function omittedLine(omitted: Said[]): string {
  const msgs = omitted.filter((r) => parseId(r.id) !== null).map((r) => parseId(r.id)!);
  const names = omitted.filter((r) => parseId(r.id) === null).map((r) => r.id);
  if (msgs.length) {
    const [lo, hi] = [Math.min(...msgs), Math.max(...msgs)];
    names.push(lo === hi ? formatId(lo) : `${formatId(lo)}..${formatId(hi)}`);
  }
  const n = omitted.length;
  return quote(`${n} earlier message${n === 1 ? '' : 's'} omitted: baton show ${names.join(' ')}`);
}

/** The smallest room a cut message keeps for its content before it is shown by its title alone. */
const MIN_CONTENT = 64;

/** The catch-up for `agent` getting `current`: what it missed, and the block showing it within the budgets. */
export function catchUp(a: Getting & { rules: CatchUpRules }): CatchUp {
  const { rules } = a;
  if (rules.mode === 'off') return NONE;
  const missed = missedBy(a);
  if (!missed.length) return NONE;
  const mode = rules.mode;
  const opener = mode === 'names' ? CATCH_UP_OPENER_NAMES : CATCH_UP_OPENER;
  const sep = mode === 'full' ? ['>'] : [];
  const block = (shown: string[][], omitted: Said[]) => {
    const body = shown.flatMap((l, i) => (i ? [...sep, ...l] : l));
    const head = omitted.length ? [omittedLine(omitted), ...(shown.length ? sep : [])] : [];
    return [opener, ...head, ...body, CATCH_UP_CLOSER].join('\n');
  };
  const measure = (shown: string[][], omitted: Said[]) => bytes(block(shown, omitted));
  // Newest first, while the block stays within the budget.
  const kept: Array<{ said: Said; lines: string[]; cut: boolean }> = [];
  for (let i = missed.length - 1; i >= 0; i--) {
    const r = missed[i]!;
    const older = missed.slice(0, i);
    let e = entry(r, mode, rules.messageMaxBytes);
    const fits = (x: { lines: string[] }) => measure([x.lines, ...kept.map((k) => k.lines)], older) <= rules.maxBytes;
    if (!fits(e)) {
      if (kept.length || mode === 'names') break;
      // The newest alone is over the budget: cut it to what is left, or name it by its title alone.
      const over = measure([e.lines], older) - rules.maxBytes;
      const room = bytes(cutTo(sanitize(r.content).replace(/\s+$/, ''), rules.messageMaxBytes)) - over - 80;
      e = room >= MIN_CONTENT ? entry(r, mode, room) : { lines: entry(r, 'names', 0).lines, cut: true };
      if (!fits(e)) break;
    }
    kept.unshift({ said: r, ...e });
  }
  const omitted = missed.slice(0, missed.length - kept.length);
  const [shown, lines] = [kept.map(({ said, cut }) => ({ said, cut })), kept.map((k) => k.lines)];
  return { missed, shown, omitted, text: block(lines, omitted) };
}
