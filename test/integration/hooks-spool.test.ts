/**
 * The hook spool against a hostile agent, with a real daemon: an agent can write its own spool
 * (`<message_dir>/.hooks/<agent>/`) and name any transcript in its notes. Each attack an adversarial run
 * found is tried on its own — a FIFO named like a note (the loop hung for good and SIGTERM was ignored), a
 * Stop note whose transcript is a FIFO (the same), a note that is a link to another file (its first bytes
 * reached the daemon's log), a link to /dev/zero (the daemon grew to 645 MB), a transcript outside its
 * client's folders (read all the same) — and after each the daemon must have set the note aside, still
 * deliver, keep its memory, say nothing of what the files hold, and stop on SIGTERM.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, ROOT, waitFor } from '../helpers/harness.js';

const FAKE_CLAUDE = join(ROOT, 'test', 'fixtures', 'fake-claude.mjs');
const SECRET = 'SECRET-41c9-what-another-file-holds';

let p: Project | undefined;
let daemon: ResultPromise | undefined;
afterEach(async () => {
  if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL'); // one that ignored SIGTERM must not hang the suite
  daemon = undefined;
  await p?.stop();
  p = undefined;
});

const noteName = (n: number, event: string) => `${String(n).padStart(15, '0')}-1-0-${event}.json`;
const screenOf = async (name: string) => (await p!.tmux(['capture-pane', '-p', '-t', `=${name}:`])).stdout;

/** Two stand-in Claude Code agents (claude1's Claude folder is CLAUDE_CONFIG_DIR) and a daemon. */
async function world(): Promise<{ spool: string; claudeDir: string }> {
  p = new Project({
    agents: { claude1: { kind: 'claude', command: 'x' }, claude2: { kind: 'claude', command: 'x' } },
    delivery: { enter_delay_ms: 100 },
  });
  const claudeDir = join(p.dir, 'claude-config');
  const config = JSON.parse(readFileSync(p.configFile, 'utf8'));
  config.agents.claude1.env = { CLAUDE_CONFIG_DIR: claudeDir };
  p.writeConfig(config);
  for (const name of ['claude1', 'claude2']) {
    const cmd = `exec node ${JSON.stringify(FAKE_CLAUDE)} ${JSON.stringify(join(p.dir, `${name}.log`))}`;
    const r = await p.tmux(['new-session', '-d', '-s', name, '-x', '200', '-y', '50', cmd]);
    expect(r.exitCode, r.stderr).toBe(0);
    await waitFor(`${name}'s box`, async () => (await screenOf(name)).includes('❯'));
  }
  daemon = (await p.startDaemon()).proc;
  const spool = p.path('.hooks', 'claude1');
  mkdirSync(join(claudeDir, 'projects', 'x'), { recursive: true });
  return { spool, claudeDir };
}

const rss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** After an attack: the note set aside, a message still delivered, memory kept, nothing of the files said, SIGTERM heard. */
async function survives(spool: string, planted: string[]): Promise<string> {
  await waitFor('the planted notes set aside', () => !readdirSync(spool).some((n) => planted.includes(n)), 10_000);
  const before = p!.archive().length;
  p!.send('c1_to_c2', `after-${before}.json`, { content: 'still delivering' });
  await waitFor('a message delivered after it', () => p!.archive()[before]?.delivered_at, 15_000);
  expect(rss(daemon!.pid!)).toBeLessThan(300);
  daemon!.kill('SIGTERM');
  await waitFor('the daemon to stop on SIGTERM', () => daemon!.exitCode !== null, 10_000);
  const out = String((await daemon!).all);
  expect(out).not.toContain(SECRET.slice(0, 6)); // not even its first bytes
  return out;
}

/** A note put in the spool whole, as `baton hook` does (written aside, then renamed): the watcher may read it at once. */
function leave(file: string, text: string): void {
  const tmp = join(dirname(file), `.${basename(file)}.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

describe('a hostile hook spool', () => {
  it('a FIFO named like a note: set aside at once, never opened for reading', async () => {
    const { spool } = await world();
    execFileSync('mkfifo', [join(spool, noteName(1, 'prompt'))]);
    const out = await survives(spool, [noteName(1, 'prompt')]);
    expect(out).toContain(`${noteName(1, 'prompt')} is not a hook note (not a regular file (a FIFO)); removed`);
  }, 60_000);

  it("a Stop note whose transcript is a FIFO in the client's own folder: the turn is not counted, the loop goes on", async () => {
    const { spool, claudeDir } = await world();
    const fifo = join(claudeDir, 'projects', 'x', 'session.jsonl');
    execFileSync('mkfifo', [fifo]);
    const stop = { event: 'stop', agent: 'claude1', at: new Date().toISOString() };
    leave(
      join(spool, noteName(1, 'stop')),
      JSON.stringify({ ...stop, payload: { prompt_id: 'p1', transcript_path: fifo, last_assistant_message: 'x' } }),
    );
    const out = await survives(spool, [noteName(1, 'stop')]);
    expect(out).toContain("claude1's transcript is not read (not a regular file (a FIFO))");
  }, 60_000);

  it("a transcript outside its client's folders is never read: its turn's tokens are not counted", async () => {
    const { spool } = await world();
    // A well-formed Claude Code turn of 135 tokens, in a file the agent wrote in its own folder.
    const outside = join(p!.dir, 'not-claude.jsonl');
    const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 20 };
    writeFileSync(
      outside,
      [
        { type: 'user', uuid: 'u1', parentUuid: null, promptId: 'p1', message: { role: 'user', content: 'hi' } },
        { type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm1', usage } },
        { type: 'system', subtype: 'turn_duration', uuid: 'd1', parentUuid: 'a1', durationMs: 5 },
      ]
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(''),
    );
    const stop = { event: 'stop', agent: 'claude1', at: new Date().toISOString() };
    leave(
      join(spool, noteName(1, 'stop')),
      JSON.stringify({ ...stop, payload: { prompt_id: 'p1', transcript_path: outside, last_assistant_message: 'x' } }),
    );
    const out = await survives(spool, [noteName(1, 'stop')]);
    expect(out).toContain("claude1's transcript is not read (not under its client's folders");
    expect(out).not.toContain(outside); // the path came from the note
    expect(p!.state().tokens).toBeUndefined();
  }, 60_000);

  it('a note that is a link to another file: not followed, and nothing of that file reaches the log', async () => {
    const { spool } = await world();
    const secret = join(p!.dir, 'secret.txt');
    writeFileSync(secret, `${SECRET} and more\n`);
    symlinkSync(secret, join(spool, noteName(1, 'prompt')));
    const out = await survives(spool, [noteName(1, 'prompt')]);
    expect(out).toContain(`${noteName(1, 'prompt')} is not a hook note (a symbolic link (never followed)); removed`);
    expect(readFileSync(secret, 'utf8')).toContain(SECRET); // the link went, not the file
  }, 60_000);

  it('a note that is a link to /dev/zero: not followed, the daemon keeps its memory', async () => {
    const { spool } = await world();
    symlinkSync('/dev/zero', join(spool, noteName(1, 'prompt')));
    const out = await survives(spool, [noteName(1, 'prompt')]);
    expect(out).toContain(`${noteName(1, 'prompt')} is not a hook note (a symbolic link (never followed)); removed`);
  }, 60_000);
});
