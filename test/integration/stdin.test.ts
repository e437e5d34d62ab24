/**
 * "-" reads the text from standard input to its end, whatever fd 0 is: a pipe fed slowly, a file, a socket,
 * a terminal. `cat 200k.txt | baton post -` once crashed with EAGAIN (3 of 3 at 200 KB): the CLI's pipe on
 * fd 0 is non-blocking, and a synchronous read got ahead of its writer. Past inbox.max_bytes + 64 KiB
 * reading stops with an error, however much more the writer has.
 */
import { execa } from 'execa';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project, ROOT, waitFor } from '../helpers/harness.js';

const WRITER = join(ROOT, 'test', 'fixtures', 'slow-writer.mjs');

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

/** About `bytes` of text with multi-byte characters, which the writer's odd-sized chunks cut in half. */
function payload(bytes: number): string {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `line ${i}: café — ねこ 🐈 "quoted" \\ back\ttab`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** `sh -c` with the arguments as $1, $2, …: a real pipe(2) between two processes, as a person's shell makes. */
const sh = (q: Project, script: string, ...args: string[]) =>
  execa('sh', ['-c', script, 'sh', ...args], { env: q.env, reject: false, cwd: q.dir });

const posted = (out: string) => JSON.parse(readFileSync(out.trim(), 'utf8')) as { content: string };

describe('"-": standard input to its end', () => {
  it('200 KB from a slow writer through a pipe: posted and archived intact; from a file too', async () => {
    p = new Project();
    const text = payload(200 * 1024);
    const file = join(p.dir, '200k.txt');
    writeFileSync(file, text);
    await p.recorder('claude2');
    await p.startDaemon();

    const r = await sh(
      p,
      'node "$1" "$2" | node "$3" post --as claude1 - --config "$4"',
      WRITER,
      file,
      CLI,
      p.configFile,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/EAGAIN|Error/);
    await waitFor('msg_0001 archived', () => p!.archive().length === 1, 20_000);
    expect(p.archive()[0]!.content).toBe(text);

    // A file on fd 0 (`< file`): the same text, as the next message.
    const f = await sh(p, 'node "$1" post --as claude2 - --config "$2" < "$3"', CLI, p.configFile, file);
    expect(f.exitCode, f.stderr).toBe(0);
    expect(posted(f.stdout).content).toBe(text);
  }, 60_000);

  it('a socket fed in pauses (`send -`, `post -`): every piece arrives', async () => {
    p = new Project();
    const text = payload(70 * 1024);
    await p.recorder('claude2');
    await p.startDaemon();
    // execa's stdin is a socket: written in pieces, with a pause after each, then closed.
    const fedSlowly = (args: string[]) => {
      const child = execa('node', [CLI, ...args, '--config', p!.configFile], {
        env: p!.env,
        reject: false,
        cwd: p!.dir,
      });
      void (async () => {
        const b = Buffer.from(text);
        for (let i = 0; i < b.length; i += 4093) {
          child.stdin!.write(b.subarray(i, i + 4093));
          await new Promise((done) => setTimeout(done, 3));
        }
        child.stdin!.end();
      })();
      return child;
    };
    const post = await fedSlowly(['post', '--as', 'claude1', '-']);
    expect(post.exitCode, post.stderr).toBe(0);
    await waitFor('msg_0001 archived', () => p!.archive().length === 1, 20_000);
    expect(p.archive()[0]!.content).toBe(text);

    const send = await fedSlowly(['send', '--to', 'claude2', '-']);
    expect(send.exitCode, send.stderr).toBe(0);
    const record = JSON.parse(readFileSync(p.path('archive', 'user_0001.json'), 'utf8')) as { content: string };
    expect(record.content).toBe(text);
  }, 60_000);

  it('typed into a terminal, ended with Ctrl-D', async () => {
    p = new Project();
    const out = join(p.dir, 'out');
    const cmd = `node ${JSON.stringify(CLI)} post --as claude1 - --config ${JSON.stringify(p.configFile)} > ${JSON.stringify(out)}; echo "exit $?" >> ${JSON.stringify(out)}`;
    const s = await p.tmux(['new-session', '-d', '-s', 'typist', '-x', '120', '-y', '20', cmd]);
    expect(s.exitCode, s.stderr).toBe(0);
    await waitFor('the prompt to end it', async () =>
      (await p!.tmux(['capture-pane', '-p', '-t', '=typist:'])).stdout.includes('Ctrl-D'),
    );
    await p.tmux(['send-keys', '-t', '=typist:', '-l', 'typed at a terminal']);
    await p.tmux(['send-keys', '-t', '=typist:', 'Enter']);
    await p.tmux(['send-keys', '-t', '=typist:', 'C-d']);
    await waitFor('post to finish', () => existsSync(out) && readFileSync(out, 'utf8').includes('exit '), 15_000);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines.at(-1)).toBe('exit 0');
    expect(posted(lines.at(-2)!).content).toBe('typed at a terminal\n');
  }, 30_000);

  it('past inbox.max_bytes + 64 KiB reading stops, with an error, however much more comes', async () => {
    p = new Project({ inbox: { max_bytes: 4096, settle_ms: 300 } });
    // An endless writer: without a limit this never ends.
    const r = await sh(p, 'yes "an endless diff" | node "$1" post --as claude1 - --config "$2"', CLI, p.configFile);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      `standard input holds more than ${4096 + 65536} bytes, and a message may be at most inbox.max_bytes (4096)`,
    );
    expect(p.ls('c1_to_c2')).toEqual([]);
    // Over max_bytes but under the margin: read whole, and refused with its size like any message.
    const over = await p.cli(['post', '--as', 'claude1', '-'], { input: 'x'.repeat(5000) });
    expect(over.exitCode).toBe(2);
    expect(over.stderr).toMatch(/not posted: \d+ bytes is over inbox\.max_bytes \(4096\)/);
  }, 30_000);
});
