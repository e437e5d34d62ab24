#!/usr/bin/env node
// The bench's stand-in agent: a raw-mode terminal program that asks for bracketed paste, echoes what it
// reads as an agent's input line does (so baton can see a paste land, src/terminal/echo.ts), timestamps every
// read(), and for each complete paste + Enter tells the bench (over a unix socket, one JSON line) when
// its first byte arrived. With --reply-dir it answers each message at once by writing a file into its
// outgoing folder (temp name, then rename), as a fast agent would; --reply-until N stops at msg_N.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: o } = parseArgs({
  options: {
    agent: { type: 'string' },
    notify: { type: 'string' },
    'reply-dir': { type: 'string' },
    'reply-until': { type: 'string' },
  },
});
const now = () => performance.timeOrigin + performance.now();
const sock = connect(o.notify);
const until = Number(o['reply-until'] ?? Infinity);
let seq = 0;

if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdout.write('\x1b[?2004h');
process.stdout.write(`recorder ready (${o.agent})\r\n`);

const START = '\x1b[200~';
const END = '\x1b[201~';
let text = ''; // latin1, so offsets are byte offsets
let first = null; // when the current paste's first byte arrived
process.stdin.on('data', (chunk) => {
  const t = now();
  // The echo: the text without the paste's markers, each line break (and the Enter) a new line.
  process.stdout.write(
    chunk
      .toString('utf8')
      .replace(/\x1b\[20[01]~/g, '')
      .replace(/\r|\n/g, '\r\n'),
  );
  text += chunk.toString('latin1');
  for (;;) {
    const s = text.indexOf(START);
    if (s < 0) break;
    first ??= t;
    const e = text.indexOf(END, s);
    if (e < 0 || text.length < e + END.length + 1) break; // the rest, and the Enter, come later
    const body = Buffer.from(text.slice(s + START.length, e), 'latin1').toString('utf8');
    const entered = text[e + END.length] === '\r';
    text = text.slice(e + END.length + (entered ? 1 : 0));
    const id = /^\[baton\] (\S+)/.exec(body)?.[1] ?? '?';
    sock.write(
      `${JSON.stringify({ agent: o.agent, id, first, done: t, entered, bytes: body.length, redelivered: body.split('\n')[0].endsWith('(redelivered)') })}\n`,
    );
    first = null;
    const n = Number(/^msg_(\d+)$/.exec(id)?.[1] ?? NaN);
    if (o['reply-dir'] && n < until) {
      const name = `msg_${process.hrtime.bigint()}_${++seq}.json`;
      const tmp = join(o['reply-dir'], `.${name}.tmp`);
      // A token of its own: the loop guard (on by default) would take 300 replies alike but for their ID for a
      // conversation going in circles, and pause it.
      const token = randomBytes(6).toString('hex');
      writeFileSync(tmp, JSON.stringify({ content: `reply from ${o.agent} to ${id}, token ${token}` }));
      renameSync(tmp, join(o['reply-dir'], name));
    }
  }
});
