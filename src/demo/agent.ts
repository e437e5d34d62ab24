/**
 * The bundled demo agent (`baton up --demo`): a tiny terminal program standing in for an agent CLI.
 * Like a real agent TUI it enables bracketed paste, collects what is typed until Enter, and when a
 * baton message arrives it answers after a short pause — through `baton post`, as a real agent would.
 * What it says is script.ts: a short conversation that baton ends by itself (max_turns).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadConfig, locateConfig } from '../config/load.js';
import { openBus } from '../bus/open.js';
import { CLI_JS } from '../app/paths.js';
import { parseHeader } from '../core/compose.js';
import { parseId } from '../core/ids.js';
import { demoLine, demoTopicLine } from './script.js';

const run = promisify(execFile);
const me = process.env.BATON_AGENT ?? '';
const delayMs = Number(process.env.BATON_DEMO_DELAY_MS ?? 1500);
/** `up --demo --topic`: the first speaker waits for the person's topic instead of opening by itself. */
const waitForTopic = process.env.BATON_DEMO_WAIT_TOPIC === '1';
const answered = new Set<string>();
const config = loadConfig(locateConfig(undefined));
const bus = openBus(config);
const peers = config.directions.filter((d) => d.from === me).map((d) => d.to);
/** Whom this agent writes to: the next agent in config order it has a folder for (round robin, handoff). */
const next =
  config.order
    .slice(config.order.indexOf(me) + 1)
    .concat(config.order)
    .find((a) => peers.includes(a)) ??
  peers[0] ??
  '?';

const dim = (s: string) => `\x1b[2m${s}\x1b[0m`;
const bold = (s: string) => `\x1b[1m${s}\x1b[0m`;
const out = (s: string) => process.stdout.write(`${s.replace(/\n/g, '\r\n')}\r\n`);

async function reply(text: string): Promise<void> {
  try {
    out(dim(`$ baton post "${text.split('\n')[0]!.slice(0, 60)}…"`));
    const to = peers.length > 1 ? ['--to', next] : [];
    const { stdout } = await run(process.execPath, [CLI_JS, 'post', '--as', me, ...to, '--', text], {
      env: process.env,
    });
    out(dim(`  → ${stdout.trim()}`));
  } catch (err) {
    out(`baton post failed: ${(err as Error).message}`);
  }
}

/** Answer message number `counter` (the next one is counter + 1), unless the script has ended. */
function answer(counter: number, prefix = ''): void {
  const line = demoLine(counter, me, next, config.order.length);
  if (line === null) {
    out(dim('demo: that was the last line of the script (baton ends a demo after its last message)'));
    return;
  }
  out(dim(`… thinking for ${delayMs} ms`));
  setTimeout(() => void reply(prefix + line), delayMs);
}

function onSubmit(text: string): void {
  const m = parseHeader(text);
  out('');
  out(m ? bold(text.split('\n')[0]!) : bold('(typed) ') + text);
  if (m) out(text.split('\n').slice(1).join('\n'));
  if (!m) return;
  const { id } = m;
  if (answered.has(id)) {
    out(dim(`(${id} again — redelivered after a restart; already answered)`));
    return;
  }
  answered.add(id);
  const counter = parseId(id);
  if (counter !== null) {
    answer(counter);
    return;
  }
  // A person's message: only a kick-off (a topic for the agent holding the turn) is answered.
  if (!text.includes('a person set this topic')) return;
  void bus.readState().then(
    (state) => {
      if (!state || state.current_turn !== me) return;
      if (state.message_counter === 0) {
        const topic = text
          .split('\n')
          .slice(1)
          .join('\n')
          .replace(/\n\[baton\] a person set this topic[\s\S]*$/, '');
        out(dim(`… thinking about the topic for ${delayMs} ms`));
        setTimeout(() => void reply(demoTopicLine(topic, me, next)), delayMs);
      } else {
        answer(state.message_counter);
      }
    },
    () => {},
  );
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
  const state = await bus.readState().catch(() => null);
  const mine = config.directions.find((d) => d.from === me);
  const waiting = mine
    ? ((await bus.waitingCounts().catch(() => ({}) as Record<string, number>))[mine.name] ?? 0) > 0
    : false;
  if (state && !state.finished && state.current_turn === me && !waiting && mine) {
    if (state.pending_reply_to) {
      out(dim(`I hold the turn: answering ${state.pending_reply_to}…`));
      // If that message is typed again (redelivered after a restart), it is already being answered.
      answered.add(state.pending_reply_to);
      answer(state.message_counter);
    } else if (waitForTopic) {
      out(dim('I hold the first turn: waiting for the topic (baton start)…'));
    } else {
      out(dim('I hold the first turn: opening the conversation…'));
      answer(0);
    }
  } else {
    out(dim(state?.finished ? `the conversation has finished (${state.finished.reason})` : 'waiting for a message…'));
  }
}

void main();
