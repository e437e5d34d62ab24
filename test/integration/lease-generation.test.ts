/**
 * The files bus's lease generation (bus/files/lock.ts) when `daemon.gen` is missing or does not read — a
 * message folder removed and made again (`rm -rf messages`), the file damaged — while the tmux server still
 * holds the fence token of the generations before. It used to start again at 1 and overwrite the file: the
 * new daemon was refused by tmux's fence (a newer token) until its take-overs had caught up, and typed the
 * first message of the new conversation as "(redelivered)" after an Enter alone into the pane.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, readRecorder, waitFor } from '../helpers/harness.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

async function restarted(times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const { proc } = await p.startDaemon();
    proc.kill('SIGTERM');
    await proc;
  }
}

describe('a lease generation with nothing to go on', () => {
  for (const [what, reset] of [
    ['the message folder removed and made again', () => rmSync(p.messages, { recursive: true, force: true })],
    ['daemon.gen damaged', () => writeFileSync(p.path('daemon.gen'), 'garbage\n')],
  ] as const) {
    it(`${what}: the next daemon is not fenced by the tokens before it`, async () => {
      p = new Project();
      await p.recorder('claude1');
      const log = await p.recorder('claude2');
      await restarted(4); // the tmux server now holds the fence token of generation 4
      reset();
      const { proc } = await p.startDaemon();
      p.send('c1_to_c2', 'one.json', { content: 'the first message' });
      await waitFor('delivered', () => p.archive()[0]?.delivered_at);
      expect(p.archive()[0]?.redelivered).toBeFalsy();
      expect(p.events().filter((e) => e.event === 'started')).toHaveLength(what.startsWith('the message') ? 1 : 5);
      await waitFor('typed', () => readRecorder(log).pastes.length === 1);
      expect(readRecorder(log).raw.toString()).not.toMatch(/^\r/); // no Enter alone before it
      expect(proc.exitCode).toBeNull();
    });
  }
});
