/**
 * The bundled demo agent (`baton up --demo`): a tiny terminal program standing in for an agent CLI.
 * Like a real agent TUI it enables bracketed paste, collects what is typed until Enter, and when a
 * baton message arrives it answers after a short pause — through `baton post`, as a real agent would.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { loadConfig, locateConfig } from '../config.js';
import { layout } from '../layout.js';
import { readState } from '../state.js';
import { CLI_JS } from '../commands/common.js';

const run = promisify(execFile);
const me = process.env.BATON_AGENT ?? '';
const delayMs = Number(process.env.BATON_DEMO_DELAY_MS ?? 1500);
/** Messages per demo run, counted from where the conversation stood when this agent started. */
const maxMessages = Number(process.env.BATON_DEMO_TURNS ?? 20);
let lastId = Infinity;
const answered = new Set<string>();
const config = loadConfig(locateConfig(undefined));
const peers = config.directions.filter((d) => d.from === me).map((d) => d.to);

const dim = (s: string) => `\x1b[2m${s}\x1b[0m`;
const bold = (s: string) => `\x1b[1m${s}\x1b[0m`;
const out = (s: string) => process.stdout.write(`${s.replace(/\n/g, '\r\n')}\r\n`);

const SCRIPT = [
  'Hi {peer}! I am {me}. Shall we go through the release checklist together, one item per turn?',
  'Sure. Item 1: the changelog. I drafted it — could you check the wording?',
  'Read it. Two typos fixed, and I moved the breaking change to the top.',
  'Agreed. Item 2: the migration guide still mentions the old --legacy flag.',
  'Replaced it with --compat and added an example:\n  baton up --compat\nIt runs here.',
  'Example works for me too ✓ (動作確認済み). Item 3: who tags the release?',
  'I will tag it once CI is green. Anything else on your side?',
  'Nothing else. Thanks, {peer} — over to you for the next round.',
];

function line(n: number, peer: string): string {
  return SCRIPT[n % SCRIPT.length]!.replaceAll('{me}', me).replaceAll('{peer}', peer);
}

async function reply(text: string): Promise<void> {
  try {
    out(dim(`$ baton post "${text.split('\n')[0]}${text.includes('\n') ? ' …' : ''}"`));
    // With several outgoing folders (handoff) the demo passes the turn on round the config's order.
    const to = peers.length > 1 ? ['--to', config.order.slice(config.order.indexOf(me) + 1).concat(config.order).find((a) => peers.includes(a))!] : [];
    const { stdout } = await run(process.execPath, [CLI_JS, 'post', '--as', me, ...to, '--', text], { env: process.env });
    out(dim(`  → ${stdout.trim()}`));
  } catch (err) {
    out(`baton post failed: ${(err as Error).message}`);
  }
}

function onSubmit(text: string): void {
  const m = /^\[baton\] (msg_(\d+)) from (\S+)/.exec(text);
  out('');
  out(m ? bold(text.split('\n')[0]!) : bold('(typed) ') + text);
  if (m) out(text.split('\n').slice(1).join('\n'));
  if (!m) return;
  const [, id, counter, from] = m;
  if (answered.has(id!)) {
    out(dim(`(${id} again — redelivered after a restart; already answered)`));
    return;
  }
  answered.add(id!);
  if (Number(counter) >= lastId) {
    out(dim(`demo: ${maxMessages} messages exchanged — that is the end of the demo. (baton down to stop)`));
    return;
  }
  out(dim(`… thinking about ${id} for ${delayMs} ms`));
  setTimeout(() => void reply(`(re ${id}) ${line(Number(counter), from!)}`), delayMs);
}

// --- a minimal line editor that understands bracketed paste ------------------------------------
let buffer = '';
let inPaste = false;
let pending = '';

function feed(chunk: string): void {
  let s = pending + chunk;
  pending = '';
  while (s.length) {
    if (s.startsWith('\x1b')) {
      const seq = /^\x1b\[(200|201)~/.exec(s);
      if (seq) {
        inPaste = seq[1] === '200';
        s = s.slice(seq[0].length);
        continue;
      }
      if (s.length < 6 && '\x1b[201~'.startsWith(s.slice(0, 6))) {
        pending = s; // a marker split across reads
        return;
      }
      s = s.slice(1);
      continue;
    }
    const ch = s[0]!;
    s = s.slice(1);
    if (inPaste) buffer += ch === '\r' ? '\n' : ch;
    else if (ch === '\r') {
      const text = buffer;
      buffer = '';
      if (text.trim()) onSubmit(text);
    } else if (ch === '\x03') {
      out('bye');
      process.stdout.write('\x1b[?2004l');
      process.exit(0);
    } else if (ch === '\x7f') buffer = buffer.slice(0, -1);
    else if (ch >= ' ' || ch === '\t' || ch === '\n') buffer += ch;
  }
}

async function main(): Promise<void> {
  if (!config.agents[me]) {
    out(`BATON_AGENT="${me}" is not an agent of this config`);
    process.exit(2);
  }
  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  process.stdout.write('\x1b[?2004h');
  out(bold(`baton demo agent "${me}"`) + dim(` — talks to ${peers.join(', ')}; Ctrl-C quits`));
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d: string) => feed(d));

  // The agent holding the turn speaks first: it opens a new conversation, or picks up an old one.
  const l = layout(config);
  const state = await readState(l.state).catch(() => null);
  lastId = (state?.message_counter ?? 0) + maxMessages;
  const mine = config.directions.find((d) => d.from === me);
  const waiting = mine ? readdirSync(mine.dir).some((n) => n.endsWith('.json')) : false;
  if (state && state.current_turn === me && !waiting && mine) {
    const opener = state.pending_reply_to
      ? `(re ${state.pending_reply_to}) Picking up where we left off. ${line(state.message_counter, mine.to)}`
      : line(0, mine.to);
    out(dim(state.pending_reply_to ? `I hold the turn: answering ${state.pending_reply_to}…` : 'I hold the first turn: opening the conversation…'));
    // If that message is typed again (redelivered after a restart), it is already being answered.
    if (state.pending_reply_to) answered.add(state.pending_reply_to);
    setTimeout(() => void reply(opener), delayMs);
  } else {
    out(dim('waiting for a message…'));
  }
}

void main();
