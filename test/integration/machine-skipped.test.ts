/**
 * A conversation the machine's daemon skips (app/machine/serve-machine.ts) is said where a person looks:
 * `baton status` in its folder gives the daemon's reason (served.json) instead of only "not running", and a
 * conversation whose folder goes away while it is served is reported skipped while the others keep flowing.
 */
import { execa } from 'execa';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, CLI, type Project, waitFor } from '../helpers/harness.js';
import { machinePid, recorderConversation, typedIn } from '../helpers/machine-fleet.js';

const made: Project[] = [];
afterEach(async () => {
  for (const p of made.splice(0)) await p.stop();
});

const conversation = (tag: string, state?: Project) => recorderConversation(tag, made, state);

type Status = { daemon: { running: boolean; pid: number | null }; skipped: { pid: number; problem: string } | null };
const statusOf = async (p: Project) => JSON.parse((await p.cli(['status', '--json'])).stdout) as Status;

async function ls(p: Project) {
  const r = await execa('node', [CLI, 'ls', '--json'], { env: p.env, cwd: tmpdir(), reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    conversations: Array<{ folder: string; run: string; ok: boolean; skipped: string | null }>;
  };
}

describe('a conversation the machine daemon skips', () => {
  it('status says why: with its config still broken, and once fixed until "baton up" there', async () => {
    const a = await conversation('ka');
    const b = await conversation('kb', a.p);
    expect((await a.p.cli(['up'])).exitCode).toBe(0);
    expect((await b.p.cli(['up'])).exitCode).toBe(0);
    const pid = machinePid(a.p);
    await waitFor('both served', async () => (await statusOf(b.p)).daemon.pid === pid);
    expect((await statusOf(b.p)).skipped).toBeNull();

    // B's config breaks, the daemon dies; the `up` in A brings one back, which skips B.
    const good = readFileSync(b.p.configFile, 'utf8');
    writeFileSync(b.p.configFile, '{ "agents": ');
    process.kill(pid, 'SIGKILL');
    await waitFor('daemon gone', () => !alive(pid));
    expect((await a.p.cli(['up'])).exitCode).toBe(0);
    const pid2 = machinePid(a.p);
    await waitFor('B skipped', async () => (await ls(a.p)).conversations.some((c) => c.skipped));

    const broken = await b.p.cli(['status']);
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toMatch(
      new RegExp(`skipped +by the machine's daemon \\(pid ${pid2}\\): .*invalid config.*; "baton up" here tries again`),
    );

    // Fixed, but not handed over again: the daemon still skips it, and status says so rather than "not running".
    writeFileSync(b.p.configFile, good);
    const s = await statusOf(b.p);
    expect(s.daemon.running).toBe(false);
    expect(s.skipped).toEqual({ pid: pid2, problem: expect.stringMatching(/invalid config/) });
    const text = (await b.p.cli(['status'])).stdout;
    expect(text).toMatch(new RegExp(`skipped +by the machine's daemon \\(pid ${pid2}\\): .*invalid config`));
    expect(text).toMatch(/conversation +not served: the machine's daemon skipped it/);
    // A is served and says nothing of it.
    expect((await statusOf(a.p)).skipped).toBeNull();

    // `baton up` in B hands it over again: served, no reason left.
    expect((await b.p.cli(['up'])).exitCode).toBe(0);
    await waitFor('B served again', async () => (await statusOf(b.p)).daemon.pid === pid2);
    expect((await statusOf(b.p)).skipped).toBeNull();
  }, 120_000);

  it('a folder gone while served is reported skipped, and the others keep flowing', async () => {
    const a = await conversation('fa');
    const b = await conversation('fb', a.p);
    expect((await a.p.cli(['up'])).exitCode).toBe(0);
    expect((await b.p.cli(['up'])).exitCode).toBe(0);
    const pid = machinePid(a.p);
    await waitFor('both served', async () => (await statusOf(b.p)).daemon.pid === pid);

    // B's message folder is replaced by a file: nothing of it can be read or written any more.
    rmSync(b.p.messages, { recursive: true, force: true });
    writeFileSync(b.p.messages, 'not a folder');
    const rowB = async () => (await ls(a.p)).conversations.find((c) => c.folder === b.p.dir);
    await waitFor('B reported skipped', async () => Boolean((await rowB())?.skipped), 20_000);
    // The reason is the error that stopped it, not only that something did.
    expect((await rowB())?.skipped).toMatch(/^it stopped: .*\/messages/);
    expect(alive(pid)).toBe(true);
    a.p.send('c1_to_c2', 'a1.json', { content: 'A flows beside a B without its folder' });
    await waitFor('A delivered', () => typedIn(a.logs.claude2, 'A flows beside a B without its folder'));
    a.p.send('c2_to_c1', 'a2.json', { content: 'and answers' });
    await waitFor('A answered', () => typedIn(a.logs.claude1, 'and answers'));
  }, 120_000);
});
